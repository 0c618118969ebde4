extension JSONValue {
    /// Decodes this document into `type` strictly, for documents people write: a member present that no
    /// `Decodable` initialiser asked for is an error (members of a `[String: …]` dictionary are names, never
    /// unknown), and every mismatch is named in plain words with its path.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - textOverrides: Values given as text (from the environment, say), by path: a member of text type
    ///     takes the text as written, any other reads it as JSON. The document must hold some value at each
    ///     of these paths, so that the member is present.
    /// - Returns: The decoded value.
    /// - Throws: ``StrictDecodingError``, the first problem found.
    public func decodeStrictly<T: Decodable>(
        _ type: T.Type,
        textOverrides: [MemberPath: String] = [:]
    ) throws(StrictDecodingError) -> T {
        let ledger = StrictDecodingLedger(textOverrides: textOverrides)
        let decoded: T
        do {
            decoded = try StrictDecoder(value: self, path: MemberPath(), ledger: ledger).decodeValue(type)
        } catch let error as StrictDecodingError {
            if case .missing = error.problem, let misspelling = ledger.misspelling(ofMissing: error.path) {
                throw misspelling
            }
            throw error
        } catch let error as DecodingError {
            throw Self.plainError(error)
        } catch {
            throw StrictDecodingError(path: MemberPath(), problem: .invalid("\(error)"))
        }
        if let unknown = ledger.firstUnknownMember() { throw unknown }
        return decoded
    }

    /// The member names `type` reads at the top level, in the order its initialiser asks for them (every
    /// member, for a type whose members are all optional).
    public static func memberNames<T: Decodable>(of type: T.Type) -> [String] {
        let ledger = StrictDecodingLedger(textOverrides: [:])
        _ = try? StrictDecoder(value: .emptyObject, path: MemberPath(), ledger: ledger).decodeValue(type)
        return ledger.askedNames(at: MemberPath())
    }

    /// A `DecodingError` thrown by a type's own initialiser, in plain words.
    private static func plainError(_ error: DecodingError) -> StrictDecodingError {
        switch error {
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            return StrictDecodingError(
                path: MemberPath(codingPath: context.codingPath),
                problem: .invalid(context.debugDescription)
            )
        case .keyNotFound(let key, let context):
            return StrictDecodingError(
                path: MemberPath(codingPath: context.codingPath + [key]),
                problem: .missing(expected: "set")
            )
        @unknown default:
            return StrictDecodingError(path: MemberPath(), problem: .invalid("\(error)"))
        }
    }
}

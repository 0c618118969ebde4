import Foundation

/// The keys a log's checkpoints may be signed by: the current key first, then the keys it replaced. A note
/// opens with whichever of them signed it, and says which one; a note none of them signed is "unknown key",
/// which says nothing of the log (it is not tampering by itself).
public struct NoteKeyring: Sendable {
    /// The keys, the current one first.
    public let keys: [NoteVerifier]

    /// A keyring of `keys`, the current one first; keys given twice are kept once.
    public init(_ keys: [NoteVerifier]) {
        var seen: Set<String> = []
        self.keys = keys.filter { seen.insert($0.verifierKey).inserted }
    }

    /// A note opened by one of the keys.
    public struct Opened: Sendable, Equatable {
        /// The note's text (the checkpoint body).
        public var body: String
        /// The key whose signature verified, as `<name>+<hex key hash>`.
        public var keyID: String
        /// That key's whole verifier key string.
        public var verifierKey: String
    }

    /// `<name>+<hex key hash>` of `key`: how reports name a key.
    public static func keyID(of key: NoteVerifier) -> String {
        "\(key.name)+\(Hex.encode(key.keyHash))"
    }

    /// Opens `note` with the first key of the ring that signed it.
    /// - Throws: ``NoteVerifier/Failure``: `.malformed`; `.badSignature` when a signature line names one of the
    ///   keys but does not verify (a forged or altered note); `.unknownKey` naming the note's own signers when
    ///   none of the keys signed it.
    public func open(_ note: String) throws(NoteVerifier.Failure) -> Opened {
        var badSignature: NoteVerifier.Failure?
        for key in self.keys {
            do {
                return Opened(body: try key.open(note), keyID: Self.keyID(of: key), verifierKey: key.verifierKey)
            } catch .notSignedByKey {
                continue
            } catch {
                if case .malformed = error { throw error }
                badSignature = badSignature ?? error
            }
        }
        if let badSignature { throw badSignature }
        throw .unknownKey(Self.signers(of: note))
    }

    /// The `<name>+<hex key hash>` of every signature line of `note`, joined by ", ".
    static func signers(of note: String) -> String {
        guard let text = NoteText(note) else { return "no readable signature" }
        return text.signatures.map { "\($0.name)+\(Hex.encode(Array($0.blob.prefix(4))))" }.joined(separator: ", ")
    }
}

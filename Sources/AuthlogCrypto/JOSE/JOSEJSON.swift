import AuthlogCore

/// Strict JSON for JOSE documents: duplicate member names and malformed text map to their error codes.
enum JOSEJSON {
    static func parse(_ bytes: [UInt8], what: String) throws(CryptoError) -> JSONValue {
        do {
            return try JSONParser(maximumDepth: 32).parse(bytes)
        } catch {
            if case .duplicateMember(let name) = error {
                throw CryptoError(.duplicateMember, "the \(what) names \(name) twice")
            }
            throw CryptoError(.malformed, "the \(what) is not strict JSON")
        }
    }
}

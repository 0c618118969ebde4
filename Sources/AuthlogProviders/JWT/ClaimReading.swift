import AuthlogCore

extension JSONValue {
    /// A boolean claim that Apple sends as `true`/`false` or `"true"`/`"false"`; `nil` when absent.
    /// - Throws: ``ProviderError`` `.invalidClaim` for any other value.
    func flexibleBool(_ name: String) throws(ProviderError) -> Bool? {
        switch self[name] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case .string("true")?: return true
        case .string("false")?: return false
        default: throw ProviderError(.invalidClaim, "\(name) must be a boolean")
        }
    }
}

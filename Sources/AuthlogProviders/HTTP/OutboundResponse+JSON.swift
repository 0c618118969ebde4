public import AuthlogCore

extension OutboundResponse {
    /// The body as a strict JSON document.
    /// - Throws: ``ProviderError`` `.providerUnavailable` for a 5xx answer, `.providerError` for a body that
    ///   is not JSON.
    public func json() throws(ProviderError) -> JSONValue {
        if self.status >= 500 {
            throw ProviderError(.providerUnavailable, "the provider answered with status \(self.status)")
        }
        do {
            return try JSONParser().parse(self.body)
        } catch {
            throw ProviderError(.providerError, "the provider's answer (status \(self.status)) is not JSON")
        }
    }

    /// The body as a JSON object, after making sure the status is 2xx.
    /// - Throws: ``ProviderError`` `.providerUnavailable` for 5xx, `rejected` for other non-2xx answers,
    ///   `.providerError` for a body that is not a JSON object.
    public func successObject(rejected: ProviderError.Reason = .providerError) throws(ProviderError) -> JSONValue {
        let document = try self.json()
        guard (200..<300).contains(self.status) else {
            throw ProviderError(rejected, "the provider refused with status \(self.status)")
        }
        guard document.isObject else { throw ProviderError(.providerError, "the provider's answer is not an object") }
        return document
    }
}

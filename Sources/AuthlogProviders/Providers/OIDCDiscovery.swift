import AuthlogCore
import Foundation

/// An OpenID provider's metadata from `/.well-known/openid-configuration`, fetched once and kept.
public actor OIDCDiscovery {
    /// The part of the metadata authlog uses.
    public struct Metadata: Sendable {
        /// The issuer tokens must name exactly.
        public var issuer: String
        /// Where the key set is published.
        public var jwksURI: String
        /// The token endpoint, if announced.
        public var tokenEndpoint: String?
        /// The userinfo endpoint, if announced.
        public var userinfoEndpoint: String?
    }

    /// The discovery document's URL.
    public let url: String
    /// The issuer the document must name, byte for byte.
    public let expectedIssuer: String
    private let fetcher: any HTTPFetching
    private var metadata: Metadata?
    private var keys: JWKSCache?
    private var inFlight: Task<Metadata, any Error>?

    /// Creates discovery for `url`, which must announce `expectedIssuer`.
    public init(url: String, expectedIssuer: String, fetcher: any HTTPFetching) {
        self.url = url
        self.expectedIssuer = expectedIssuer
        self.fetcher = fetcher
    }

    /// The metadata, fetched on first use (and again after a failure).
    /// - Throws: ``ProviderError`` `.providerUnavailable` when unreachable, `.issuerMismatch` when the
    ///   document names another issuer.
    public func current() async throws(ProviderError) -> Metadata {
        if let metadata = self.metadata { return metadata }
        if self.inFlight == nil { self.inFlight = Task { try await self.download() } }
        guard let task = self.inFlight else { throw ProviderError(.providerUnavailable, "discovery did not start") }
        do {
            let metadata = try await task.value
            self.metadata = metadata
            self.inFlight = nil
            return metadata
        } catch {
            self.inFlight = nil
            throw (error as? ProviderError) ?? ProviderError(.providerUnavailable, "discovery failed")
        }
    }

    /// The key cache, if ``keyCache()`` has made it.
    public var existingKeyCache: JWKSCache? { self.keys }

    /// The provider's key cache at its discovered `jwks_uri`, made once.
    public func keyCache() async throws(ProviderError) -> JWKSCache {
        if let keys = self.keys { return keys }
        let metadata = try await self.current()
        let keys = self.keys ?? JWKSCache(url: metadata.jwksURI, fetcher: self.fetcher)
        self.keys = keys
        return keys
    }

    private func download() async throws -> Metadata {
        let response = try await self.fetcher.fetch(
            OutboundRequest(url: self.url, headers: [("Accept", "application/json")])
        )
        let document = try response.successObject(rejected: .providerUnavailable)
        guard let issuer = document["issuer"]?.stringValue, let jwksURI = document["jwks_uri"]?.stringValue else {
            throw ProviderError(.providerError, "the discovery document lacks issuer or jwks_uri")
        }
        guard issuer.utf8.elementsEqual(self.expectedIssuer.utf8) else {
            throw ProviderError(.issuerMismatch, "the discovery document names another issuer")
        }
        return Metadata(
            issuer: issuer,
            jwksURI: jwksURI,
            tokenEndpoint: document["token_endpoint"]?.stringValue,
            userinfoEndpoint: document["userinfo_endpoint"]?.stringValue
        )
    }
}

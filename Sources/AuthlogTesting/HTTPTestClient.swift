public import AuthlogCore
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A small HTTP client for tests and the benchmark (AsyncHTTPClient's shared client underneath).
public struct HTTPTestClient: Sendable {
    /// One answer.
    public struct Answer: Sendable {
        public let status: Int
        /// The answer's headers.
        public let headers: [(name: String, value: String)]
        /// The answer's body.
        public let body: [UInt8]

        /// The body as JSON, or `null` when it is not JSON.
        public var json: JSONValue { (try? JSONParser().parse(self.body)) ?? .null }

        /// The first header called `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            self.headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// The server's base URL.
    public let baseURL: String

    /// One client for the whole process, allowing 128 connections per host (AsyncHTTPClient's shared client
    /// allows 8, which would serialise the concurrency tests and the benchmark). It lives as long as the process.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 128
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// Creates a client for `baseURL`.
    public init(baseURL: String) { self.baseURL = baseURL }

    /// Sends a request; `json` is sent as `application/json`.
    /// - Throws: when the server cannot be reached.
    public func send(
        _ method: String, _ path: String, json: JSONValue? = nil, body: [UInt8]? = nil,
        headers: [(String, String)] = []
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: self.baseURL + path)
        request.method = HTTPMethod(rawValue: method)
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: json.canonicalBytes))
        } else if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        let response = try await Self.client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return Answer(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: Array(buffer: bytes))
    }

    /// `POST path` with a JSON body.
    /// - Throws: when the server cannot be reached.
    public func post(_ path: String, _ json: JSONValue, headers: [(String, String)] = []) async throws -> Answer {
        try await self.send("POST", path, json: json, headers: headers)
    }
}

extension JSONValue {
    /// A JSON object from `name: value` pairs, for test bodies.
    public static func members(_ members: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(members.map { ($0.key, $0.value) })
    }
}

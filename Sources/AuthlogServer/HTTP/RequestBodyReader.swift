import AuthlogAccounts
import AuthlogCore
import Hummingbird
import NIOCore
import NIOHTTP1

/// Reads request bodies under the configured limit, before any parsing: a `Content-Length` over the
/// limit is refused without reading, and reading stops as soon as the limit is passed.
struct RequestBodyReader: Sendable {
    /// Why a body was refused; each maps to its answer.
    enum Refusal: Error {
        case tooLarge
        case timedOut
        /// The body's media type is not the one the route takes (named in the answer).
        case unsupportedMediaType(expected: String)
        case malformed(String)

        var reason: RequestRefusalReason {
            switch self {
            case .tooLarge: .requestTooLarge
            case .timedOut: .requestTimeout
            case .unsupportedMediaType: .unsupportedMediaType
            case .malformed: .malformedRequest
            }
        }

        var answer: ServiceError {
            switch self {
            case .tooLarge:
                ServiceError(.contentTooLarge, "request_too_large", "The request body is larger than allowed.")
            case .timedOut:
                ServiceError(
                    .requestTimeout,
                    "request_timeout",
                    "The request body did not arrive in time.",
                    headers: [.connection: "close"]
                )
            case .unsupportedMediaType(let expected):
                ServiceError(.unsupportedMediaType, "unsupported_media_type", "Send the body as \(expected).")
            case .malformed(let why): ServiceError.badRequest(why)
            }
        }
    }

    let limit: Int

    /// The raw body, at most `limit` bytes.
    /// - Throws: ``Refusal``.
    func bytes(of request: Request) async throws -> [UInt8] {
        if let declared = request.headers[.contentLength], Self.exceeds(self.limit, declared: declared) {
            throw Refusal.tooLarge
        }
        do {
            return Array(buffer: try await request.body.collect(upTo: self.limit))
        } catch is RequestBodyTimedOut {
            throw Refusal.timedOut
        } catch let error as HTTPParserError {
            throw Refusal.malformed("The request body is not valid HTTP/1.1 framing (\(error)).")
        } catch {
            throw Refusal.tooLarge
        }
    }

    /// Whether a declared `Content-Length` is over `limit`, including lengths too large for an `Int` (2^63 to
    /// 2^64 − 1, which the HTTP parser accepts): those are refused at once rather than waited for.
    static func exceeds(_ limit: Int, declared: String) -> Bool {
        guard !declared.isEmpty, declared.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return false }
        guard let length = Int(declared) else { return true }
        return length > limit
    }

    /// The body as a JSON object; an empty body reads as `{}` when `allowEmpty`.
    /// - Throws: ``Refusal``.
    func jsonObject(of request: Request, allowEmpty: Bool = false) async throws -> JSONValue {
        let bytes = try await self.bytes(of: request)
        if bytes.isEmpty, allowEmpty { return .emptyObject }
        let document = try self.json(bytes, of: request)
        guard document.isObject else { throw Refusal.malformed("The body must be a JSON object.") }
        return document
    }

    /// The body as a JSON object or array.
    /// - Throws: ``Refusal``.
    func jsonObjectOrArray(of request: Request) async throws -> JSONValue {
        let document = try self.json(try await self.bytes(of: request), of: request)
        switch document {
        case .object, .array: return document
        default: throw Refusal.malformed("The body must be a JSON object or an array of objects.")
        }
    }

    /// `bytes` parsed as JSON, when the request says it is JSON.
    private func json(_ bytes: [UInt8], of request: Request) throws -> JSONValue {
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        guard contentType.hasPrefix("application/json") else {
            throw Refusal.unsupportedMediaType(expected: "application/json")
        }
        let document: JSONValue
        do {
            document = try JSONParser(maximumDepth: 16).parse(bytes)
        } catch {
            throw Refusal.malformed("The body is not valid JSON (\(error)).")
        }
        return document
    }
}

extension JSONValue {
    /// The string member `name`; `nil` when absent or null.
    /// - Throws: ``RequestBodyReader/Refusal/malformed(_:)`` when present with another type.
    func optionalString(_ name: String) throws -> String? {
        switch self[name] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw RequestBodyReader.Refusal.malformed("\(name) must be a string.")
        }
    }
}

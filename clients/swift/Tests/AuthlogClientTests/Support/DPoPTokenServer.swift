import Foundation

/// authlog's sign-in, refresh and logout routes with DPoP (RFC 9449) as the server implements it, plus a resource
/// server's route, over a real HTTP server on 127.0.0.1 (``LoopbackHTTPServer``). Every proof is checked with
/// ``DPoPProofCheck`` (swift-crypto, nothing of the client's) for the request it came with (`htm`, `htu`, `iat`,
/// `ath`, and the nonce when one is asked for):
/// - `POST /v1/signin/dev` with a proof binds the new session's refresh-token family to the proof key's thumbprint
///   and answers `token_type` `DPoP`; without one, `Bearer`.
/// - `POST /v1/token/refresh` of a bound family needs a proof of the same key (401 `invalid_dpop_proof` with
///   `dpop_missing` or `dpop_wrong_key` otherwise; the family lives on).
/// - `POST /v1/logout` and `GET /resource` take the access token: `Authorization: DPoP` with a proof whose `ath`
///   hashes it for a bound family, `Bearer` otherwise. `/resource` answers its refusals as a resource server does,
///   in `WWW-Authenticate: DPoP error="…"` without a body.
/// - ``refuseForNonce(_:)`` makes the next proofs be refused with `use_dpop_nonce` (authlog's JSON on its routes,
///   the challenge on `/resource`) and a new `DPoP-Nonce`; from then on every proof must carry the latest nonce.
///
/// `@unchecked Sendable`: every stored `var` is read and written only while `lock` is held; `server` is set once.
final class DPoPTokenServer: @unchecked Sendable {
    /// One request as the server saw it.
    struct Seen: Sendable {
        var method: String
        var path: String
        var authorization: String?
        /// The `DPoP` header as sent.
        var dpop: String?
        /// The proof's claims when it checked out.
        var proof: CheckedProof?
        /// Why the proof did not check out, when it did not.
        var proofProblem: String?
        /// The nonce the answer gave in `DPoP-Nonce`, if any.
        var nonceGiven: String?
        var status: Int
    }

    /// A refresh-token family: one session.
    private struct Family {
        var boundTo: String?
        var liveRefreshToken: String
    }

    private let lock = NSLock()
    private var server: LoopbackHTTPServer?
    private var families: [String: Family] = [:]
    private var accessTokens: [String: String] = [:]
    private var serial = 0
    private var log: [Seen] = []
    /// How many of the next proofs are refused with `use_dpop_nonce`.
    private var nonceRefusals = 0
    /// The nonce proofs must carry, once one was given.
    private var currentNonce: String?
    /// How far this server's clock is ahead of the machine's (negative: behind), as a device with a wrong clock
    /// sees it; every answer carries `Date` by it.
    private var clockOffset: TimeInterval = 0

    init() throws {
        self.server = try LoopbackHTTPServer { [weak self] request in
            self?.answer(request) ?? HTTPAnswer(status: 503)
        }
    }

    deinit {
        self.server?.stop()
    }

    var baseURL: URL { self.server?.baseURL ?? URL(fileURLWithPath: "/") }

    /// The resource server's route.
    var resourceURL: URL { self.baseURL.appendingPathComponent("resource") }

    /// Every request so far, in order.
    var seen: [Seen] { self.lock.withLock { self.log } }

    /// The requests to `path` so far.
    func seen(_ path: String) -> [Seen] { self.seen.filter { $0.path == path } }

    /// Sets how far this server's clock is ahead of the machine's (negative: behind).
    func setClock(offset: TimeInterval) { self.lock.withLock { self.clockOffset = offset } }

    /// This server's clock.
    private var now: Date { Date().addingTimeInterval(self.clockOffset) }

    /// Refuses the next `count` proofs with `use_dpop_nonce`, each time with a new nonce.
    func refuseForNonce(_ count: Int) { self.lock.withLock { self.nonceRefusals = count } }

    /// The thumbprint the family of `refreshToken` is bound to, if any.
    func binding(of refreshToken: String) -> String? {
        self.lock.withLock { self.families.values.first { $0.liveRefreshToken == refreshToken }?.boundTo }
    }

    // MARK: Routes

    private func answer(_ request: HTTPRequest) -> HTTPAnswer {
        self.lock.withLock {
            var seen = Seen(
                method: request.method,
                path: request.path,
                authorization: request.headers["authorization"],
                dpop: request.headers["dpop"],
                status: 0
            )
            var answer = self.route(request, &seen)
            if let nonce = self.currentNonce { answer.headers["DPoP-Nonce"] = nonce }
            let date = DateFormatter()
            date.locale = Locale(identifier: "en_US_POSIX")
            date.timeZone = TimeZone(identifier: "GMT")
            date.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            answer.headers["Date"] = date.string(from: self.now)
            seen.nonceGiven = answer.headers["DPoP-Nonce"]
            seen.status = answer.status
            self.log.append(seen)
            return answer
        }
    }

    private func route(_ request: HTTPRequest, _ seen: inout Seen) -> HTTPAnswer {
        let isResource = request.path == "/resource"
        let accessToken = Self.accessToken(in: request)
        // The proof, checked for this request; a refusal when it fails a check.
        if let header = request.headers["dpop"] {
            do {
                let proof = try DPoPProofCheck.check(header)
                seen.proof = proof
                if let problem = self.problem(with: proof, for: request, accessToken: accessToken?.token) {
                    seen.proofProblem = problem
                    return Self.refusal("invalid_dpop_proof", problem, resource: isResource)
                }
                if self.nonceRefusals > 0 {
                    self.nonceRefusals -= 1
                    self.serial += 1
                    self.currentNonce = "nonce-\(self.serial)"
                    return Self.refusal("use_dpop_nonce", "dpop_nonce_stale", resource: isResource)
                }
            } catch {
                seen.proofProblem = "\(error)"
                return Self.refusal("invalid_dpop_proof", "dpop_malformed", resource: isResource)
            }
        }
        switch (request.method, request.path) {
        case ("POST", "/v1/signin/dev"):
            self.serial += 1
            let family = "family-\(self.serial)"
            self.families[family] = Family(boundTo: seen.proof?.thumbprint, liveRefreshToken: "")
            return self.issue(family)
        case ("POST", "/v1/token/refresh"):
            let body = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any]
            guard let presented = body?["refresh_token"] as? String,
                let (family, state) = self.families.first(where: { $0.value.liveRefreshToken == presented })
            else { return .json(400, ["error": "invalid_grant", "error_description": "not a live refresh token"]) }
            if let bound = state.boundTo {
                guard let proof = seen.proof else { return Self.refusal("invalid_dpop_proof", "dpop_missing") }
                guard proof.thumbprint == bound else { return Self.refusal("invalid_dpop_proof", "dpop_wrong_key") }
            }
            return self.issue(family)
        case ("POST", "/v1/logout"), ("GET", "/resource"):
            guard let accessToken, let family = self.accessTokens[accessToken.token], let state = self.families[family]
            else { return Self.refusal("invalid_token", "unknown access token", resource: isResource) }
            if let bound = state.boundTo {
                guard accessToken.scheme == "DPoP", let proof = seen.proof, proof.thumbprint == bound else {
                    return Self.refusal("invalid_dpop_proof", "dpop_wrong_key", resource: isResource)
                }
            } else if accessToken.scheme != "Bearer" {
                return Self.refusal(
                    "invalid_token",
                    "a Bearer token sent as \(accessToken.scheme)",
                    resource: isResource
                )
            }
            if request.path == "/v1/logout" {
                self.families[family] = nil
                return HTTPAnswer(status: 204)
            }
            return .json(200, ["ok": true])
        default:
            return .json(404, ["error": "not_found"])
        }
    }

    /// What is wrong with `proof` for `request`, or `nil`: the checks of the server's verifier after the signature.
    private func problem(with proof: CheckedProof, for request: HTTPRequest, accessToken: String?) -> String? {
        let now = Int(self.now.timeIntervalSince1970)
        guard proof.htm == request.method else { return "dpop_htm_mismatch" }
        guard proof.htu == self.baseURL.absoluteString + request.path else { return "dpop_htu_mismatch" }
        guard proof.iat >= now - 60 else { return "dpop_iat_stale" }
        guard proof.iat <= now + 15 else { return "dpop_iat_future" }
        guard !proof.jti.isEmpty, proof.jti.utf8.count <= 128 else { return "dpop_malformed" }
        guard !self.log.contains(where: { $0.proof?.jti == proof.jti && $0.proof?.thumbprint == proof.thumbprint })
        else { return "dpop_replayed" }
        if let accessToken {
            guard proof.ath == DPoPProofCheck.ath(accessToken) else { return "dpop_ath_mismatch" }
        } else if proof.ath != nil {
            return "an ath without an access token"
        }
        if let nonce = self.currentNonce, proof.nonce != nonce { return "dpop_nonce_stale" }
        return nil
    }

    /// The next pair of `family`; `lock` is held.
    private func issue(_ family: String) -> HTTPAnswer {
        self.serial += 1
        let refresh = "\(family)/refresh-\(self.serial)"
        let access = "\(family)/access-\(self.serial)"
        self.families[family]?.liveRefreshToken = refresh
        self.accessTokens[access] = family
        let format = ISO8601DateFormatter()
        return .json(
            200,
            [
                "user_id": "user-1", "session_id": family, "is_new_user": false, "access_token": access,
                "access_token_expires_at": format.string(from: Date().addingTimeInterval(900)),
                "refresh_token": refresh,
                "refresh_token_expires_at": format.string(from: Date().addingTimeInterval(86_400)),
                "token_type": self.families[family]?.boundTo == nil ? "Bearer" : "DPoP",
            ]
        )
    }

    /// The `Authorization` header's scheme and token.
    private static func accessToken(in request: HTTPRequest) -> (scheme: String, token: String)? {
        guard let header = request.headers["authorization"], let space = header.firstIndex(of: " ") else { return nil }
        return (String(header[..<space]), String(header[header.index(after: space)...]))
    }

    /// A refusal as authlog answers it (401 JSON with the reason; `use_dpop_nonce` is 400 on its token routes), or
    /// as a resource server does (401, `WWW-Authenticate: DPoP error="…"`, no body).
    private static func refusal(_ error: String, _ reason: String, resource: Bool = false) -> HTTPAnswer {
        if resource {
            return HTTPAnswer(
                status: 401,
                headers: ["WWW-Authenticate": #"DPoP algs="ES256", error="\#(error)", error_description="\#(reason)""#]
            )
        }
        let status = error == "use_dpop_nonce" ? 400 : 401
        return .json(status, ["error": error, "error_description": "refused: \(reason)", "reason": reason])
    }
}

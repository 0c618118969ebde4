extension OCSFEvent {
    /// The attributes of the event's class that its export-format event has facts for: the user, session, source
    /// address, user agent and client app, authlog as the destination service, the authentication protocol, and
    /// what API Activity and Web Resource Access Activity require. The class comes from ``EventType/ocsf`` and
    /// the severity from ``EventType/ocsfSeverity(outcome:reason:)``, exhaustive switches: a new event type is
    /// mapped or does not compile, and `OCSFSchemaValidationTests` validates a line of every type.
    static func classMembers(of event: JSONValue, type: EventType) -> [(name: String, value: JSONValue)] {
        let facts = Facts(event)
        switch type.ocsf.classUID {
        case OCSFMapping.authenticationClass:
            let authProtocol = facts.provider.map { OCSFAuthProtocol.of(provider: $0, method: facts.method) }
            let chosen = authProtocol ?? OCSFAuthProtocol.sessionToken
            var members: [(name: String, value: JSONValue)] = [
                ("user", facts.user),
                ("auth_protocol_id", .integer(chosen.id)),
                ("auth_protocol", .string(chosen.caption)),
                ("is_remote", .bool(true)),
                ("service", .object([("name", .string(Self.productName))])),
                ("dst_endpoint", Facts.authlogEndpoint),
            ]
            if let session = facts.sessionID {
                members.append(
                    ("session", .object([("uid", .string(session)), ("issuer", .string(Self.productName))]))
                )
            }
            return members + facts.actor(withSession: false) + facts.source + facts.userAgent
        case OCSFMapping.accountChangeClass:
            return [("user", facts.user)] + facts.actor(withSession: true) + facts.source
        case OCSFMapping.apiActivityClass:
            return self.apiActivity(facts, type: type)
        case OCSFMapping.webResourceAccessClass:
            let route = facts.data?["route"]?.stringValue ?? "edge"
            var request: [(name: String, value: JSONValue)] = []
            if let agent = facts.string("user_agent") { request.append(("user_agent", .string(agent))) }
            // The class has neither `actor` nor `dst_endpoint`: the refused request's client is its source.
            return [
                ("http_request", .object(request)),
                ("web_resources", .array([.object([("name", .string(route)), ("type", .string("route"))])])),
            ] + facts.source
        default:
            // Event Log Activity: the log is authlog's own. Its category (System Activity) requires `actor` (the
            // log itself when no one else acted: a checkpoint signed, events refused, a witness's alarm) and
            // `device` (the server that keeps the log).
            let actor = facts.actor(withSession: true)
            return [
                ("log_name", .string(Self.productName)),
                ("log_provider", .string(Self.productName)),
                ("dst_endpoint", Facts.authlogEndpoint),
                ("device", Facts.authlogDevice),
            ] + (actor.isEmpty ? [("actor", .object([("app_name", .string(Self.productName))]))] : actor) + facts.source
        }
    }

    /// API Activity: a provider calling authlog (a notification) or authlog calling a provider (a grant's
    /// revocation). The class requires `actor`, `api` and `src_endpoint`.
    private static func apiActivity(_ facts: Facts, type: EventType) -> [(name: String, value: JSONValue)] {
        let provider = facts.provider ?? "provider"
        let providerEndpoint = JSONValue.object([("svc_name", .string(provider))])
        var members: [(name: String, value: JSONValue)]
        if type == .providerRevocationAttempted {
            members = [
                ("actor", .object([("app_name", .string(Self.productName))])),
                (
                    "api",
                    .object([
                        ("operation", .string("revoke_grant")), ("service", .object([("name", .string(provider))])),
                    ])
                ),
                ("src_endpoint", Facts.authlogEndpoint),
                ("dst_endpoint", providerEndpoint),
            ]
        } else {
            let operation = facts.data?["notice"]?.stringValue ?? "notification"
            var source: [(name: String, value: JSONValue)] = [("svc_name", .string(provider))]
            if let ip = facts.string("ip") { source.append(("ip", .string(ip))) }
            members = [
                ("actor", .object([("app_name", .string(provider))])),
                (
                    "api",
                    .object([
                        ("operation", .string(operation)),
                        ("service", .object([("name", .string(Self.productName))])),
                    ])
                ),
                ("src_endpoint", .object(source)),
                ("dst_endpoint", Facts.authlogEndpoint),
            ]
            members += facts.userAgent
        }
        if let user = facts.userID {
            members.append(("resources", .array([.object([("uid", .string(user)), ("type", .string("user"))])])))
        }
        return members
    }
}

/// The members of one export-format event that the class mappings read.
private struct Facts {
    let event: JSONValue
    let data: JSONValue?

    init(_ event: JSONValue) {
        self.event = event
        self.data = event["data"]
    }

    /// authlog as an endpoint: the service that recorded the event.
    static let authlogEndpoint = JSONValue.object([("svc_name", .string(OCSFEvent.productName))])

    /// authlog as a device: a server (`type_id` 1), named `authlog` (no host name: every process of a
    /// deployment, and `authlog export` anywhere, must give the same line).
    static let authlogDevice = JSONValue.object([
        ("type_id", .integer(1)), ("type", .string("Server")), ("name", .string(OCSFEvent.productName)),
    ])

    func string(_ name: String) -> String? { self.event[name]?.stringValue }

    var provider: String? { self.string("provider") }
    var userID: String? { self.string("user_id") }
    var sessionID: String? { self.string("session_id") }
    var method: String? { self.data?["method"]?.stringValue }

    /// `user`: authlog's user id, and the identity at the provider by its subject hash when the event names one
    /// (a locked identity, a failure after the provider vouched for the subject). A refused proof names neither:
    /// `uid` `unknown`, `type_id` 0.
    var user: JSONValue {
        var members: [(name: String, value: JSONValue)] = []
        if let user = self.userID {
            members += [("uid", .string(user)), ("type_id", .integer(1)), ("type", .string("User"))]
        }
        if let subject = self.data?["subject_hash"]?.stringValue {
            let account: [(name: String, value: JSONValue)] = [
                ("uid", .string(subject)), ("type_id", .integer(99)),
                ("type", .string((self.provider ?? "provider") + " subject hash")),
            ]
            members.append(("account", .object(account)))
        }
        if members.isEmpty {
            members = [("uid", .string("unknown")), ("type_id", .integer(0)), ("type", .string("Unknown"))]
        }
        return .object(members)
    }

    /// `actor`: the client app (`client_id`) as `app_name`, who acted when `data.actor` says (an API key
    /// `key:NAME`, an operator `os:USER@HOST`, a client `client:ID`, …) as `user.uid`, else the event's user;
    /// with `withSession`, the session as `actor.session` (classes without a `session` attribute of their own).
    func actor(withSession: Bool) -> [(name: String, value: JSONValue)] {
        var members: [(name: String, value: JSONValue)] = []
        if let client = self.string("client_id") { members.append(("app_name", .string(client))) }
        if let actor = self.data?["actor"]?.stringValue {
            members.append(("user", .object([("uid", .string(actor))])))
        } else if let user = self.userID {
            members.append(("user", .object([("uid", .string(user))])))
        }
        if withSession, let session = self.sessionID {
            members.append(("session", .object([("uid", .string(session))])))
        }
        return members.isEmpty ? [] : [("actor", .object(members))]
    }

    /// `src_endpoint` with the client's address, when the event has one.
    var source: [(name: String, value: JSONValue)] {
        guard let ip = self.string("ip") else { return [] }
        return [("src_endpoint", .object([("ip", .string(ip))]))]
    }

    /// `http_request` with the client's user agent, when the event has one.
    var userAgent: [(name: String, value: JSONValue)] {
        guard let agent = self.string("user_agent") else { return [] }
        return [("http_request", .object([("user_agent", .string(agent))]))]
    }
}

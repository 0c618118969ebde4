import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

/// Every OCSF line authlog can give validates strictly against the schema's own files (``OCSFSchema``: OCSF
/// 1.8.0), and its `unmapped.attestation_list` against the proposed `record_integrity` profile's `attestation`
/// object (ocsf-schema PR #1661): every event type, with each outcome it may have, with only its
/// required columns and with every column set, without evidence, pending and checkpointed. A type added to the
/// catalogue is built by ``OCSFSamples`` from the catalogue itself (``EventType/allCases``, its required columns
/// and fixed outcome), so a new type without a complete mapping fails here by name. `Checkers.OCSFJSONSchemaTests`
/// validates the same lines with an independent validator.
struct OCSFSchemaValidationTests {
    @Test func everyLineOfEveryTypeValidatesAgainstTheSchema() throws {
        let schema = try OCSFSchema.checkedIn()
        let profile = try OCSFSchema.checkedInWithRecordIntegrity()
        let lines = OCSFSamples.lines()
        for (label, line) in lines {
            let problems = schema.problems(inLine: try JSONParser().parse(line), attestationsAgainst: profile)
            #expect(problems.isEmpty, "\(label): \(problems) in \(line)")
        }
        #expect(lines.count >= EventType.allCases.count * 6)
        #expect(Set(lines.map { $0.label.prefix { $0 != " " } }).count == EventType.allCases.count)
    }

    @Test func everyLineCarriesWhatASIEMCorrelatesOn() throws {
        for type in EventType.allCases {
            let outcome = type.fixedOutcome ?? .failure
            let event = try JSONParser().parse(
                OCSFEvent.line(OCSFSamples.exportEvent(type, outcome, full: true), evidence: OCSFSamples.evidences[2])
            )
            let name = type.rawValue
            #expect(event["metadata"]?["event_code"]?.stringValue == name)
            #expect(event["metadata"]?["uid"]?.stringValue == "0199a0a0-0000-7000-8000-000000000042", "\(name)")
            #expect(event["metadata"]?["correlation_uid"]?.stringValue == "req-1", "\(name)")
            #expect(event["metadata"]?["sequence"]?.integerValue == 42, "\(name)")
            #expect(event["metadata"]?["product"]?["version"]?.stringValue == AuthlogVersion.current)
            #expect(event["time"]?.integerValue == 1_795_770_000_250 && event["time_dt"] != nil, "\(name)")
            #expect(event["timezone_offset"]?.integerValue == 0, "\(name)")
            // A grant's revocation is authlog's own call: its source is authlog, not the client's address.
            if type == .providerRevocationAttempted {
                #expect(event["src_endpoint"]?["svc_name"]?.stringValue == "authlog", "\(name)")
            } else {
                #expect(event["src_endpoint"]?["ip"]?.stringValue == "2001:db8::7", "\(name)")
            }
            // Account Change and Web Resource Access Activity have no `dst_endpoint` in OCSF 1.8.0.
            let classes = [OCSFMapping.accountChangeClass, OCSFMapping.webResourceAccessClass]
            #expect((event["dst_endpoint"]?["svc_name"] != nil) != classes.contains(type.ocsf.classUID), "\(name)")
            if let aggregate = type.ocsfAggregate {
                #expect(event["count"]?.integerValue == 7, "\(name): the aggregated count")
                #expect((event["start_time"]?.integerValue == 1_795_769_940_000) == (aggregate.start != nil), "\(name)")
                #expect((event["end_time"]?.integerValue == 1_795_770_000_000) == (aggregate.end != nil), "\(name)")
            } else {
                #expect(event["count"] == nil && event["start_time"] == nil, "\(name) stands for one occurrence")
            }
            #expect(event["status_detail"]?.stringValue == "invalid_signature", "\(name)")
            #expect(event["unmapped"]?["event_id"] != nil && event["unmapped"]?["proof"] != nil, "\(name)")
            if type.ocsf.classUID == OCSFMapping.authenticationClass {
                #expect(event["auth_protocol_id"]?.integerValue != nil && event["auth_protocol"] != nil, "\(name)")
                #expect(event["service"]?["name"]?.stringValue == "authlog", "\(name)")
                if type.requiredFields.contains(.sessionID) {
                    #expect(event["session"]?["uid"]?.stringValue == "0199a0a0-0000-7000-8000-00000000bbbb")
                }
            }
        }
        let refused = try JSONParser().parse(
            OCSFEvent.line(OCSFSamples.exportEvent(.requestRefused, .failure, full: true), evidence: nil)
        )
        #expect(refused["count"]?.integerValue == 7, "the sum of data.counts")
    }

    @Test func theAuthProtocolFollowsTheProviderAndTheMethod() throws {
        func protocolID(_ provider: String, _ method: String?) -> Int {
            OCSFAuthProtocol.of(provider: provider, method: method).id
        }
        #expect(protocolID("apple", "id_token") == 4 && protocolID("google", "authorization_code") == 4)
        #expect(protocolID("github", "authorization_code") == 6 && protocolID("kakao", "access_token") == 6)
        #expect(protocolID("dev", "development") == 99 && OCSFAuthProtocol.of(provider: "dev").caption == "development")
        let refresh = try JSONParser().parse(
            OCSFEvent.line(OCSFSamples.exportEvent(.tokenRefreshed, .success, full: false), evidence: nil)
        )
        #expect(refresh["auth_protocol_id"]?.integerValue == 99)
        #expect(refresh["auth_protocol"]?.stringValue == "authlog session token")
    }

    @Test func theValidatorRefusesWhatTheSchemaDoesNotAllow() throws {
        let schema = try OCSFSchema.checkedIn()
        let valid = OCSFEvent.line(
            OCSFSamples.exportEvent(.signinFailed, .failure, full: true),
            evidence: OCSFSamples.evidences[2]
        )
        #expect(schema.problems(in: try JSONParser().parse(valid)).isEmpty)
        func problems(_ change: (inout [(name: String, value: JSONValue)]) -> Void) throws -> [String] {
            var members = try #require(try JSONParser().parse(valid).objectMembers)
            change(&members)
            return schema.problems(in: .object(members))
        }
        func set(_ name: String, _ value: JSONValue?) -> (inout [(name: String, value: JSONValue)]) -> Void {
            { members in
                members.removeAll { $0.name == name }
                if let value { members.append((name, value)) }
            }
        }
        #expect(try problems(set("user", nil)) == ["user: required"])
        #expect(
            try problems(set("email", .string("a@b.example"))) == ["email: not an attribute of this class or object"]
        )
        #expect(try problems(set("status_id", .number("7"))).contains("status_id: 7 is not a value of its enum"))
        #expect(try problems(set("time", .string("yesterday"))) == ["time: \"yesterday\" is not a timestamp_t"])
        #expect(try problems(set("type_uid", .number("300299"))) == ["type_uid: not class_uid × 100 + activity_id"])
        #expect(
            try problems(set("severity", .string("High"))) == ["severity: \"High\" is not the caption \"Low\" of 2"]
        )
        #expect(try problems(set("src_endpoint", .object([("ip", .string("not an address"))]))).count == 1)
        #expect(try problems(set("time_dt", .string("27/11/2026"))).count == 1)
        var withoutProfile = try #require(try JSONParser().parse(valid).objectMembers)
        let metadata = try #require(withoutProfile.first { $0.name == "metadata" }?.value.objectMembers)
        withoutProfile.removeAll { $0.name == "metadata" }
        withoutProfile.append(("metadata", .object(metadata.filter { $0.name != "profiles" })))
        #expect(
            schema.problems(in: .object(withoutProfile)).contains("time_dt: not an attribute of this class or object")
        )
        let attestation = try #require(try JSONParser().parse(valid)["unmapped"]?["attestation_list"]?.arrayValue?[0])
        #expect(
            try OCSFSchema.checkedInWithRecordIntegrity().problems(
                in: .object(
                    (attestation.objectMembers ?? []).filter { $0.name != "fingerprint" && $0.name != "signatures" }
                ),
                asObject: "attestation",
                at: "a"
            ) == ["a: at least one of fingerprint, signatures"]
        )
    }

    /// Why the attestation goes under `unmapped`: on the class, with the profile listed, a strict OCSF 1.8.0
    /// validator refuses the line twice (the OCSF server's `attribute_unknown` and `profile_unknown`), while a
    /// validator that knows the proposed profile accepts it.
    @Test func theProfileOnTheClassIsRefusedByOCSF180() throws {
        let valid = OCSFEvent.line(
            OCSFSamples.exportEvent(.signinSucceeded, .success, full: true),
            evidence: OCSFSamples.evidences[2]
        )
        var members = try #require(try JSONParser().parse(valid).objectMembers)
        let unmapped = try #require(members.first { $0.name == "unmapped" }?.value.objectMembers)
        let metadata = try #require(members.first { $0.name == "metadata" }?.value.objectMembers)
        members.removeAll { $0.name == "unmapped" || $0.name == "metadata" }
        let list = try #require(unmapped.first { $0.name == "attestation_list" }?.value)
        let profiles = JSONValue.array([.string("datetime"), .string("record_integrity")])
        let listed: [(name: String, value: JSONValue)] =
            metadata.filter { $0.name != "profiles" } + [("profiles", profiles)]
        members.append(("attestation_list", list))
        members.append(("unmapped", .object(unmapped.filter { $0.name != "attestation_list" })))
        members.append(("metadata", .object(listed)))
        let profiled = JSONValue.object(members)
        #expect(
            try OCSFSchema.checkedIn().problems(in: profiled) == [
                "attestation_list: not an attribute of this class or object",
                "metadata.profiles[1]: the schema has no profile record_integrity",
            ]
        )
        #expect(try OCSFSchema.checkedInWithRecordIntegrity().problems(in: profiled).isEmpty)
    }

    @Test func theAttestationCarriesTheLogsFacts() throws {
        let line = OCSFEvent.line(
            OCSFSamples.exportEvent(.signinSucceeded, .success, full: false),
            evidence: OCSFSamples.evidences[2]
        )
        let event = try JSONParser().parse(line)
        #expect(event["metadata"]?["profiles"] == .array([.string("datetime")]), "only what OCSF 1.8.0 defines")
        #expect(event["attestation_list"] == nil, "OCSF 1.8.0 has no attestation_list")
        let attestation = try #require(event["unmapped"]?["attestation_list"]?.arrayValue?.first)
        #expect(attestation["uid"]?.stringValue == String(repeating: "1e", count: 32), "the leaf hash")
        #expect(attestation["chain_uid"]?.stringValue == "audit.example/log")
        #expect(attestation["fingerprint"]?["value"]?.stringValue == String(repeating: "0d", count: 32))
        #expect(attestation["fingerprint"]?["serialization"]?.stringValue == "authlog.event.v2")
        #expect(attestation["fingerprint"]?["encoding_id"]?.integerValue == 1, "hex")
        #expect(attestation["prev_event"]?["uid"]?.stringValue == "0199a0a0-0000-7000-8000-000000000041")
        #expect(attestation["prev_event"]?["fingerprint"]?["value"]?.stringValue == String(repeating: "0c", count: 32))
        #expect(attestation["authority_uid"]?.stringValue == "audit.example/log+01020304")
        let signatures = try #require(attestation["signatures"]?.arrayValue)
        #expect(signatures.count == 2)
        #expect(signatures[0]["serialization"]?.stringValue == "c2sp.org/tlog-checkpoint")
        #expect(signatures[1]["created_time"]?.integerValue == 1_764_360_192_000, "the cosignature's own time")
        let proof = try #require(event["unmapped"]?["proof"])
        #expect(proof["tree_size"]?.integerValue == 64 && proof["leaf_index"]?.integerValue == 41)
        #expect(proof["checkpoint"]?.stringValue == OCSFSamples.note)
        let pending = try JSONParser().parse(
            OCSFEvent.line(
                OCSFSamples.exportEvent(.signinSucceeded, .success, full: false),
                evidence: OCSFSamples.evidences[1]
            )
        )
        #expect(pending["unmapped"]?["proof"]?["status"]?.stringValue == "pending")
        #expect(
            pending["unmapped"]?["proof"]?["inclusion_proof_path"]?.stringValue == "/v1/log/proof/inclusion?position=42"
        )
        let pendingAttestation = try #require(pending["unmapped"]?["attestation_list"]?.arrayValue?.first)
        #expect(pendingAttestation["signatures"] == nil && pendingAttestation["fingerprint"] != nil)
    }
}

import AuthlogCore
import Foundation
import Testing

/// `EventType.ocsf` holds to OCSF's own schema files (checked in unmodified under `Fixtures/ocsf`), and
/// docs/events.md's OCSF table says what the code says.
struct OCSFMappingTests {
    /// One event class of the schema: its `class_uid`, caption and activities (`activity_id` → caption and
    /// description).
    private struct SchemaClass {
        let uid: Int
        let caption: String
        let activities: [Int: (caption: String, description: String)]
    }

    /// The class files checked in, relative to `Fixtures/ocsf/events`.
    private static let classFiles = [
        "iam/authentication.json", "iam/account_change.json", "application/api_activity.json",
        "application/web_resource_access_activity.json", "system/event_log_activity.json",
    ]

    /// The parent files a class may extend, by their `name`.
    private static let parentFiles = ["iam/iam.json", "application/application.json", "system/system.json"]

    private static func activities(of file: JSONValue) -> [Int: (caption: String, description: String)] {
        var result: [Int: (caption: String, description: String)] = [:]
        for member in file["attributes"]?["activity_id"]?["enum"]?.objectMembers ?? [] {
            guard let id = Int(member.name), let caption = member.value["caption"]?.stringValue else { continue }
            result[id] = (caption, member.value["description"]?.stringValue ?? "")
        }
        return result
    }

    /// The checked-in classes by `class_uid`: each class's `uid` within its category, the category found by
    /// following `extends` to the file that names it, and the category's `uid` from `categories.json`.
    private static func schemaClasses() throws -> [Int: SchemaClass] {
        let categories = try RepositoryFiles.fixtureJSON("ocsf/categories.json")
        var parents: [String: JSONValue] = [:]
        for path in Self.parentFiles {
            let file = try RepositoryFiles.fixtureJSON("ocsf/events/" + path)
            parents[try #require(file["name"]?.stringValue)] = file
        }
        var classes: [Int: SchemaClass] = [:]
        for path in Self.classFiles {
            let file = try RepositoryFiles.fixtureJSON("ocsf/events/" + path)
            let parentName = try #require(file["extends"]?.stringValue, "\(path) extends a category's class")
            let category = try #require(parents[parentName]?["category"]?.stringValue, "\(parentName) names a category")
            let categoryUID = try #require(categories["attributes"]?[category]?["uid"]?.integerValue)
            let uid = try #require(file["uid"]?.integerValue)
            let classUID = Int(categoryUID) * 1000 + Int(uid)
            classes[classUID] = SchemaClass(
                uid: classUID,
                caption: try #require(file["caption"]?.stringValue),
                activities: Self.activities(of: file)
            )
        }
        return classes
    }

    @Test func theFixturesAreTheSchemaVersionTheMappingNames() throws {
        let version = try RepositoryFiles.fixtureJSON("ocsf/version.json")
        #expect(version["version"]?.stringValue == OCSFMapping.schemaVersion)
        let readme = try RepositoryFiles.fixture("ocsf/README.md")
        #expect(readme.contains("OCSF \(OCSFMapping.schemaVersion)"))
        let document = try RepositoryFiles.document("events.md")
        #expect(document.contains("**OCSF \(OCSFMapping.schemaVersion)**"))
    }

    @Test func everyClassAndActivityIsTheSchemasOwn() throws {
        let classes = try Self.schemaClasses()
        let base = Self.activities(of: try RepositoryFiles.fixtureJSON("ocsf/events/base_event.json"))
        #expect(base[OCSFMapping.otherActivity]?.caption == "Other")
        for type in EventType.allCases {
            let mapping = type.ocsf
            let schemaClass = try #require(classes[mapping.classUID], "\(type.rawValue): class \(mapping.classUID)")
            #expect(schemaClass.caption == mapping.className, "\(type.rawValue)")
            #expect(mapping.categoryUID == schemaClass.uid / 1000)
            #expect(mapping.typeUID == mapping.classUID * 100 + mapping.activityID)
            let activity = schemaClass.activities[mapping.activityID] ?? base[mapping.activityID]
            #expect(
                activity?.caption == mapping.activityCaption,
                "\(type.rawValue): activity \(mapping.activityID) of \(mapping.className) is \(activity?.caption ?? "undefined")"
            )
            if mapping.activityID == OCSFMapping.otherActivity {
                #expect(type.ocsfActivityName == type.rawValue, "activity 99 carries the source's own name")
            } else {
                #expect(type.ocsfActivityName == mapping.activityCaption)
            }
        }
    }

    @Test func noEventIsMappedToAKerberosActivity() throws {
        let classes = try Self.schemaClasses()
        let authentication = try #require(classes[3002])
        let kerberos = authentication.activities.filter {
            $0.value.description.contains("Kerberos") || $0.value.description.contains("preauthentication")
        }
        #expect(Set(kerberos.keys) == [3, 4, 5, 6], "the schema's own Kerberos activities")
        for type in EventType.allCases where type.ocsf.classUID == 3002 {
            #expect(!kerberos.keys.contains(type.ocsf.activityID), "\(type.rawValue) is not a Kerberos activity")
        }
        #expect(EventType.tokenIssued.ocsf.activityID == OCSFMapping.otherActivity)
        #expect(EventType.tokenRefreshed.ocsf.activityID == OCSFMapping.otherActivity)
    }

    @Test func statusAndAuthProtocolAreTheDictionarys() throws {
        let dictionary = try RepositoryFiles.fixtureJSON("ocsf/dictionary.json")
        let status = try #require(dictionary["attributes"]?["status_id"]?["enum"])
        for outcome in Outcome.allCases {
            #expect(status[String(outcome.ocsfStatusID)]?["caption"]?.stringValue == outcome.ocsfStatus)
        }
        #expect(Outcome.success.ocsfStatusID == 1 && Outcome.failure.ocsfStatusID == 2)
        let protocols = try #require(dictionary["attributes"]?["auth_protocol_id"]?["enum"])
        for provider in ["apple", "google", "gitlab", "kakao", "firebase", "github", "corporate-oidc"] {
            let chosen = OCSFAuthProtocol.of(provider: provider)
            #expect(protocols[String(chosen.id)]?["caption"]?.stringValue == chosen.caption, "\(provider)")
        }
        #expect(OCSFAuthProtocol.of(provider: "github").id == 6)
        #expect(OCSFAuthProtocol.of(provider: "apple").id == 4)
    }

    @Test func theDocumentsTableSaysWhatTheCodeSays() throws {
        let rows = MarkdownTables.firstTable(after: "## OCSF", in: try RepositoryFiles.document("events.md"))
        var documented: [EventType: OCSFMapping] = [:]
        for row in rows {
            try #require(row.count == 6, "a row of six cells: \(row)")
            let name = try #require(MarkdownTables.codeSpans(in: row[0]).first, "\(row)")
            let type = try #require(EventType(rawValue: name), "\(name) is an event type")
            #expect(documented[type] == nil, "\(name) appears once")
            documented[type] = OCSFMapping(
                classUID: try #require(Int(row[2]), "\(row)"),
                className: row[1],
                activityID: try #require(Int(row[3]), "\(row)"),
                activityCaption: row[4]
            )
        }
        for type in EventType.allCases {
            #expect(documented[type] == type.ocsf, "docs/events.md's OCSF row of \(type.rawValue)")
        }
    }

    /// The Medium and High rows of docs/events.md's severity table name exactly the types the code gives that
    /// severity (a forged proof's reason leaves Low for the types whose severity depends on it).
    @Test func theSeverityTableSaysWhatTheCodeSays() throws {
        let rows = MarkdownTables.firstTable(after: "### Severity", in: try RepositoryFiles.document("events.md"))
        for severity in [OCSFSeverity.medium, .high] {
            let row = try #require(rows.first { $0.first == "\(severity.rawValue) \(severity.caption)" }, "\(rows)")
            let named = Set(MarkdownTables.codeSpans(in: row[1]).compactMap(EventType.init(rawValue:)))
            let coded = Set(
                EventType.allCases.filter {
                    $0.ocsfSeverity(outcome: $0.fixedOutcome ?? .failure, reason: "invalid_signature") == severity
                }
            )
            #expect(named == coded, "docs/events.md's \(severity.caption) row")
        }
    }

    @Test func whatTheDocumentQuotesFromTheSchemaIsInIt() throws {
        let classes = try Self.schemaClasses()
        let rows = MarkdownTables.firstTable(after: "## OCSF", in: try RepositoryFiles.document("events.md"))
        var quotes = 0
        for row in rows where row.count == 6 {
            let schemaClass = try #require(Int(row[2]).flatMap { classes[$0] }, "\(row)")
            let texts = schemaClass.activities.values.flatMap { [$0.caption, $0.description] }
            // Text in double quotes in the "why" cell is the schema's own words about the class's activities.
            let pieces = row[5].split(separator: "\"", omittingEmptySubsequences: false)
            for quoted in stride(from: 1, to: pieces.count, by: 2).map({ String(pieces[$0]) }) {
                quotes += 1
                #expect(texts.contains { $0.contains(quoted) }, "\(row[0]) quotes \"\(quoted)\"")
            }
        }
        #expect(quotes >= 8, "the table quotes the schema: \(quotes)")
    }
}

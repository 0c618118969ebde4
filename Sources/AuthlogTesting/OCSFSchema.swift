public import AuthlogCore
public import Foundation

/// An OCSF event validator read from the schema's own source files (the `ocsf-schema` repository's layout:
/// `dictionary.json`, `categories.json`, `events/…`, `objects/…`, `profiles/…`), as the OCSF server compiles
/// them: a class is `base_event` extended by its category's class and then by itself, an object is extended by
/// its parents, `$include`d profile attributes count only when the event lists the profile in
/// `metadata.profiles`, and the `datetime` profile adds `X_dt` (`datetime_t`) beside every `timestamp_t` `X`.
///
/// An overlay directory (the same layout) adds a proposed profile: its dictionary entries and objects replace or
/// extend the base ones and its profiles apply at `base_event`, as ocsf-schema PR #1661 applies
/// `record_integrity`.
///
/// ``problems(in:)`` names, by JSON path: a required attribute missing (by class, object and constraint), an
/// attribute the class or object does not define (an attribute a profile brings counts only when the event lists
/// the profile), a profile listed in `metadata.profiles` that the schema does not define (the OCSF server's
/// `profile_unknown`), a value of the wrong type or not matching its type's regular
/// expression, an enum id the attribute does not define, a caption sibling that is not the id's caption, and a
/// `type_uid`, `category_uid`, `class_name` or `category_name` that does not follow from the class and activity.
public struct OCSFSchema: Sendable {
    /// One attribute as a class or object defines it, merged with the dictionary's entry.
    struct Attribute: Sendable {
        var type: String
        var isArray: Bool
        var requirement: String
        var enumeration: JSONValue?
        var sibling: String?
        /// The profile that brings the attribute, when it comes from an `$include`.
        var profile: String?
    }

    /// A class or object: its attributes by name and its constraints.
    struct Shape: Sendable {
        var attributes: [String: Attribute]
        var atLeastOne: [[String]]
        var justOne: [[String]]
    }

    private let classes: [Int: (shape: Shape, caption: String, categoryUID: Int)]
    private let objects: [String: Shape]
    private let types: [String: (base: String, regex: String?)]
    private let categoryCaptions: [Int: String]
    /// The names of the profiles the schema defines (its `profiles/` files, and the overlay's).
    private let profiles: Set<String>

    /// Reads the schema under `directory`, with the proposed profiles of `overlay` applied at `base_event`.
    /// - Throws: when a file is missing or is not the JSON the schema repository holds.
    public init(directory: URL, overlay: URL? = nil) throws {
        let reader = SchemaFiles(roots: [overlay, directory].compactMap { $0 })
        let baseDictionary = try SchemaFiles(roots: [directory]).json("dictionary.json")
        var dictionary = baseDictionary["attributes"]?.objectMembers ?? []
        if let overlay {
            let extra = try SchemaFiles(roots: [overlay]).json("dictionary.json")["attributes"]?.objectMembers ?? []
            dictionary = extra + dictionary.filter { entry in !extra.contains { $0.name == entry.name } }
        }
        let entries = Dictionary(dictionary.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        var types: [String: (base: String, regex: String?)] = [:]
        for member in baseDictionary["types"]?["attributes"]?.objectMembers ?? [] {
            types[member.name] = (member.value["type"]?.stringValue ?? member.name, member.value["regex"]?.stringValue)
        }
        self.types = types
        var categoryCaptions: [Int: String] = [:]
        var categoryUIDs: [String: Int] = [:]
        for member in try SchemaFiles(roots: [directory]).json("categories.json")["attributes"]?.objectMembers ?? [] {
            guard let uid = member.value["uid"]?.integerValue else { continue }
            categoryUIDs[member.name] = Int(uid)
            categoryCaptions[Int(uid)] = member.value["caption"]?.stringValue
        }
        self.categoryCaptions = categoryCaptions
        let builder = ShapeBuilder(reader: reader, dictionary: entries)
        let overlayProfiles = try overlay.map { try SchemaFiles.files(under: $0, in: "profiles").map(\.json) } ?? []
        self.profiles = Set(
            try ([directory] + [overlay].compactMap { $0 }).flatMap { try SchemaFiles.files(under: $0, in: "profiles") }
                .compactMap { $0.json["name"]?.stringValue }
        )
        var classes: [Int: (shape: Shape, caption: String, categoryUID: Int)] = [:]
        let base = try reader.json("events/base_event.json")
        for path in try reader.classFiles() {
            let file = try reader.json(path)
            guard let parentName = file["extends"]?.stringValue, parentName != "base_event",
                let uid = file["uid"]?.integerValue
            else { continue }
            let parentPath = try reader.classFiles().first { (try? reader.json($0)["name"]?.stringValue) == parentName }
            guard let parentPath, let parent = try? reader.json(parentPath),
                let categoryUID = parent["category"]?.stringValue.flatMap({ categoryUIDs[$0] })
            else { continue }
            var shape = try builder.shape(of: [base, parent, file])
            for profile in overlayProfiles {
                builder.include(profile, into: &shape)
            }
            classes[categoryUID * 1000 + Int(uid)] = (shape, file["caption"]?.stringValue ?? "", categoryUID)
        }
        self.classes = classes
        var objects: [String: Shape] = [:]
        for path in try reader.objectFiles() {
            let file = try reader.json(path)
            guard let name = file["name"]?.stringValue, objects[name] == nil else { continue }
            objects[name] = try builder.shape(of: try reader.objectChain(file))
        }
        self.objects = objects
    }

    /// The checked-in copy of OCSF 1.8.0 (`Tests/AuthlogCoreTests/Fixtures/ocsf`), strictly: what every authlog
    /// OCSF line is validated against.
    /// - Throws: when a file of the copy is missing or unreadable.
    public static func checkedIn() throws -> OCSFSchema {
        try OCSFSchema(directory: RepositoryFiles.url(Self.fixtures))
    }

    /// The checked-in copy with the `record_integrity` profile of ocsf-schema PR #1661 (its `record_integrity`
    /// folder) applied: what a line's `unmapped.attestation_list` is validated against, as the profile's
    /// `attestation` objects.
    /// - Throws: when a file of the copy is missing or unreadable.
    public static func checkedInWithRecordIntegrity() throws -> OCSFSchema {
        let directory = RepositoryFiles.url(Self.fixtures)
        return try OCSFSchema(directory: directory, overlay: directory.appendingPathComponent("record_integrity"))
    }

    private static let fixtures = "Tests/AuthlogCoreTests/Fixtures/ocsf"

    /// What is wrong with `value` as an object `name` of the schema (such as `attestation`), each problem with
    /// its JSON path under `path`; a name the schema does not define is one problem.
    public func problems(in value: JSONValue, asObject name: String, at path: String) -> [String] {
        guard let shape = self.objects[name] else { return ["\(path): the schema has no object \(name)"] }
        return ObjectCheck(schema: self, profiles: []).problems(in: value, shape: shape, at: path + ".")
    }

    /// What is wrong with `event` against its class (empty: it validates), each problem with its JSON path.
    public func problems(in event: JSONValue) -> [String] {
        guard let classUID = event["class_uid"]?.integerValue, let schemaClass = self.classes[Int(classUID)] else {
            return ["class_uid: \(event["class_uid"].map(\.canonicalText) ?? "missing") is not a class of the schema"]
        }
        let listed = (event["metadata"]?["profiles"]?.arrayValue ?? []).compactMap(\.stringValue)
        let profiles = Set(listed)
        var problems = ObjectCheck(schema: self, profiles: profiles).problems(
            in: event,
            shape: schemaClass.shape,
            at: ""
        )
        for (index, profile) in listed.enumerated() where !self.profiles.contains(profile) {
            problems.append("metadata.profiles[\(index)]: the schema has no profile \(profile)")
        }
        let activity = event["activity_id"]?.integerValue ?? -1
        if event["type_uid"]?.integerValue != classUID * 100 + activity {
            problems.append("type_uid: not class_uid × 100 + activity_id")
        }
        if event["category_uid"]?.integerValue != Int64(schemaClass.categoryUID) {
            problems.append("category_uid: the class is in category \(schemaClass.categoryUID)")
        }
        if let name = event["class_name"], name.stringValue != schemaClass.caption {
            problems.append("class_name: the class is \(schemaClass.caption)")
        }
        if let name = event["category_name"], name.stringValue != self.categoryCaptions[schemaClass.categoryUID] {
            problems.append("category_name: the category is \(self.categoryCaptions[schemaClass.categoryUID] ?? "?")")
        }
        let activityCaption = schemaClass.shape.attributes["activity_id"]?.enumeration?[String(activity)]?["caption"]
        if let name = event["type_name"],
            name.stringValue != "\(schemaClass.caption): \(activityCaption?.stringValue ?? "?")"
        {
            problems.append("type_name: not \"<class>: <activity>\" of the type_uid")
        }
        return problems
    }

    /// What is wrong with one authlog OCSF line: ``problems(in:)`` against this schema (strict 1.8.0), and each
    /// of its `unmapped.attestation_list` against `profile`'s `attestation` object (the proposed profile).
    public func problems(inLine event: JSONValue, attestationsAgainst profile: OCSFSchema) -> [String] {
        var problems = self.problems(in: event)
        for (index, attestation) in (event["unmapped"]?["attestation_list"]?.arrayValue ?? []).enumerated() {
            problems += profile.problems(
                in: attestation,
                asObject: "attestation",
                at: "unmapped.attestation_list[\(index)]"
            )
        }
        return problems
    }

    fileprivate func object(_ name: String) -> Shape? { self.objects[name] }

    fileprivate func type(_ name: String) -> (base: String, regex: String?)? { self.types[name] }
}

/// Checks one object (or the event itself) against its shape, recursively.
private struct ObjectCheck {
    let schema: OCSFSchema
    let profiles: Set<String>

    /// The event's ids that the OCSF server derives from the category and class: `problems(in:)` checks them.
    static let derivedIDs: Set<String> = ["class_uid", "category_uid", "type_uid"]

    func problems(in value: JSONValue, shape: OCSFSchema.Shape, at path: String) -> [String] {
        guard let members = value.objectMembers else { return ["\(path): not an object"] }
        var problems: [String] = []
        let present = Set(members.map(\.name))
        let inForce = shape.attributes.filter { $0.value.profile.map(self.profiles.contains) ?? true }
        for (name, attribute) in inForce where attribute.requirement == "required" && !present.contains(name) {
            problems.append("\(path)\(name): required")
        }
        let object = path.isEmpty ? "" : path.dropLast() + ": "
        for group in shape.atLeastOne where !group.contains(where: present.contains) {
            problems.append("\(object)at least one of \(group.joined(separator: ", "))")
        }
        for group in shape.justOne where group.filter(present.contains).count != 1 {
            problems.append("\(object)just one of \(group.joined(separator: ", "))")
        }
        for (name, member) in members {
            let here = path + name
            if name.hasSuffix("_dt"), self.profiles.contains("datetime"),
                inForce[String(name.dropLast(3))]?.type == "timestamp_t"
            {
                problems += self.check(member, type: "datetime_t", at: here)
                continue
            }
            guard let attribute = inForce[name] else {
                problems.append("\(here): not an attribute of this class or object")
                continue
            }
            if attribute.isArray {
                guard let elements = member.arrayValue else {
                    problems.append("\(here): not an array")
                    continue
                }
                for (index, element) in elements.enumerated() {
                    problems += self.check(element, attribute, at: "\(here)[\(index)]")
                }
            } else if Self.derivedIDs.contains(here) {
                // A class file's enum holds its uid within the category; the full ids are checked by the class.
                problems += self.check(member, type: attribute.type, at: here)
            } else {
                problems += self.check(member, attribute, at: here)
            }
            if let sibling = attribute.sibling, let id = member.integerValue, id != 99, let text = value[sibling],
                let caption = attribute.enumeration?[String(id)]?["caption"]?.stringValue, text.stringValue != caption
            {
                problems.append("\(path)\(sibling): \(text.canonicalText) is not the caption \"\(caption)\" of \(id)")
            }
        }
        return problems
    }

    private func check(_ value: JSONValue, _ attribute: OCSFSchema.Attribute, at path: String) -> [String] {
        var problems = self.check(value, type: attribute.type, at: path)
        if let enumeration = attribute.enumeration, let id = value.integerValue, enumeration[String(id)] == nil {
            problems.append("\(path): \(id) is not a value of its enum")
        }
        return problems
    }

    private func check(_ value: JSONValue, type: String, at path: String) -> [String] {
        if let shape = self.schema.object(type) { return self.problems(in: value, shape: shape, at: path + ".") }
        if type == "object" { return value.isObject ? [] : ["\(path): not an object"] }
        var base = type
        var regexes: [String] = []
        while let known = self.schema.type(base), known.base != base || known.regex != nil {
            if let regex = known.regex { regexes.append(regex) }
            if known.base == base { break }
            base = known.base
        }
        let fits: Bool
        switch (base, value) {
        case ("string_t", .string): fits = true
        case ("integer_t", .number(let text)), ("long_t", .number(let text)):
            fits = Int64(text) != nil
        case ("float_t", .number): fits = true
        case ("boolean_t", .bool): fits = true
        case ("json_t", _): fits = true
        default: fits = false
        }
        guard fits else { return ["\(path): \(value.canonicalText) is not a \(type)"] }
        if case .string(let text) = value {
            for regex in regexes where text.range(of: regex, options: .regularExpression) == nil {
                return ["\(path): \"\(text)\" does not match \(type)'s pattern"]
            }
        }
        return []
    }
}

/// Merges class and object files into shapes.
private struct ShapeBuilder {
    let reader: SchemaFiles
    let dictionary: [String: JSONValue]

    /// The shape of a chain of files, parent first; later files refine earlier ones.
    func shape(of chain: [JSONValue]) throws -> OCSFSchema.Shape {
        var shape = OCSFSchema.Shape(attributes: [:], atLeastOne: [], justOne: [])
        for file in chain {
            for (name, definition) in file["attributes"]?.objectMembers ?? [] {
                if name == "$include" {
                    for path in (definition.arrayValue ?? []).compactMap(\.stringValue) {
                        // A profile missing from the copy is one no authlog line lists: its attributes stay unknown.
                        guard let profile = try? self.reader.json(path) else { continue }
                        self.include(profile, into: &shape)
                    }
                    continue
                }
                shape.attributes[name] = self.attribute(name, definition, over: shape.attributes[name], profile: nil)
            }
            if let constraints = file["constraints"] {
                shape.atLeastOne =
                    (constraints["at_least_one"]?.arrayValue).map { [$0.compactMap(\.stringValue)] }
                    ?? shape.atLeastOne
                shape.justOne =
                    (constraints["just_one"]?.arrayValue).map { [$0.compactMap(\.stringValue)] }
                    ?? shape.justOne
            }
        }
        return shape
    }

    /// Adds the attributes of `profile` (a profile file), each counting only where the event lists it.
    func include(_ profile: JSONValue, into shape: inout OCSFSchema.Shape) {
        let name = profile["name"]?.stringValue
        for (attribute, definition) in profile["attributes"]?.objectMembers ?? [] {
            shape.attributes[attribute] = self.attribute(attribute, definition, over: nil, profile: name)
        }
    }

    /// An enum refined by a child: the parent's values, with the child's added or replacing them (as the OCSF
    /// server compiles a class's `activity_id` over `base_event`'s 0 and 99).
    private static func merged(_ child: JSONValue?, over parent: JSONValue?) -> JSONValue? {
        guard let child, let parent, let parentValues = parent.objectMembers, let childValues = child.objectMembers
        else { return child ?? parent }
        return .object(parentValues.filter { value in !childValues.contains { $0.name == value.name } } + childValues)
    }

    private func attribute(
        _ name: String,
        _ definition: JSONValue,
        over earlier: OCSFSchema.Attribute?,
        profile: String?
    ) -> OCSFSchema.Attribute {
        let entry = self.dictionary[name]
        return OCSFSchema.Attribute(
            type: definition["type"]?.stringValue ?? earlier?.type ?? entry?["type"]?.stringValue ?? "unknown",
            isArray: definition["is_array"]?.boolValue ?? earlier?.isArray ?? entry?["is_array"]?.boolValue ?? false,
            requirement: definition["requirement"]?.stringValue ?? earlier?.requirement ?? "optional",
            enumeration: Self.merged(definition["enum"], over: earlier?.enumeration ?? entry?["enum"]),
            sibling: definition["sibling"]?.stringValue ?? earlier?.sibling ?? entry?["sibling"]?.stringValue,
            profile: profile ?? earlier?.profile
        )
    }
}

/// The schema's files under one or more roots; the first root holding a path wins.
private struct SchemaFiles {
    let roots: [URL]

    func json(_ path: String) throws -> JSONValue {
        for root in self.roots {
            let url = root.appendingPathComponent(path)
            guard let data = FileManager.default.contents(atPath: url.path) else { continue }
            return try JSONParser().parse(Array(data))
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
    }

    func classFiles() throws -> [String] {
        try self.roots.flatMap { try Self.files(under: $0, in: "events").map(\.path) }
            .filter { $0 != "events/base_event.json" }
    }

    func objectFiles() throws -> [String] {
        try self.roots.flatMap { try Self.files(under: $0, in: "objects").map(\.path) }
    }

    /// The object's file and its parents' (`extends`), parent first.
    func objectChain(_ file: JSONValue) throws -> [JSONValue] {
        var chain = [file]
        while let parent = chain[0]["extends"]?.stringValue, parent != "object" {
            guard
                let path = try self.objectFiles().first(where: { (try? self.json($0)["name"]?.stringValue) == parent })
            else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "objects/\(parent).json"])
            }
            chain.insert(try self.json(path), at: 0)
        }
        return chain
    }

    /// The `.json` files under `root/folder`, as paths relative to `root`, with their parsed text.
    static func files(under root: URL, in folder: String) throws -> [(path: String, json: JSONValue)] {
        let base = root.appendingPathComponent(folder)
        guard let enumerator = FileManager.default.enumerator(atPath: base.path) else { return [] }
        var files: [(path: String, json: JSONValue)] = []
        for case let relative as String in enumerator where relative.hasSuffix(".json") {
            let path = folder + "/" + relative
            guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path) else {
                continue
            }
            files.append((path, try JSONParser().parse(Array(data))))
        }
        return files.sorted { $0.path < $1.path }
    }
}

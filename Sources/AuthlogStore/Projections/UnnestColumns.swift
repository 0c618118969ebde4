import AuthlogPostgres

/// Columns given as `"name type, name type"`, sent as one array parameter each through `unnest`, so that a
/// statement's text is the same for one row or a thousand (prepared and planned once per connection).
struct UnnestColumns {
    /// The column names, in order.
    let names: [String]
    /// The PostgreSQL type of each column's elements.
    let types: [String]

    /// Reads the list's ASCII bytes: splitting it as Characters (grapheme breaking) cost about 6 % of a
    /// 1-appender writer's CPU, for a list that every projection statement of every batch parses.
    init(_ list: String) {
        let columns = Array(list.utf8).split(separator: UInt8(ascii: ",")).map { column in
            column.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") })
        }
        self.names = columns.map { String(decoding: $0.first ?? [], as: UTF8.self) }
        self.types = columns.map { $0.count > 1 ? String(decoding: $0[$0.startIndex + 1], as: UTF8.self) : "text" }
    }

    /// Appends `unnest($n::type[], …) AS v(names)` binding one array per column from `rows` (one array of
    /// text values per row, in column order).
    func appendUnnest(_ rows: [[String?]], to query: inout SQLQuery) {
        var arrays = [[String?]](repeating: [], count: self.names.count)
        for row in rows {
            for index in arrays.indices { arrays[index].append(index < row.count ? row[index] : nil) }
        }
        query.append(unescaped: "unnest(")
        Self.appendArrays(Array(zip(arrays.map(ArrayLiteral.init), self.types)), to: &query)
        query.append(unescaped: ") AS v(\(self.names.joined(separator: ", ")))")
    }

    /// Appends `$n::type[], …`, binding each array: the argument list of an `unnest`.
    static func appendArrays(_ arrays: [(ArrayLiteral, String)], to query: inout SQLQuery) {
        for (index, (array, type)) in arrays.enumerated() {
            let placeholder = query.bind(array)
            query.append(unescaped: (index == 0 ? "" : ", ") + "\(placeholder)::\(type)[]")
        }
    }
}

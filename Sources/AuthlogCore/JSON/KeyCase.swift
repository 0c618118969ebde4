/// Member names are stored in snake_case; Swift properties are camelCase with the acronym `ID`.

/// `accessTokenID` → `access_token_id`, as `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase` spells it.
func snakeCase(fromCamelCase key: String) -> String {
    let utf8 = key.utf8
    if !utf8.contains(where: { (0x41...0x5A).contains($0) || $0 >= 0x80 }) { return key }
    if !utf8.contains(where: { $0 >= 0x80 }) { return asciiSnakeCase(Array(utf8)) }
    let scalars = Array(key.unicodeScalars)
    var output = String.UnicodeScalarView()
    for (index, scalar) in scalars.enumerated() {
        let isUpper = scalar.properties.isUppercase
        if isUpper && index > 0 {
            let previousIsUpper = scalars[index - 1].properties.isUppercase
            let nextIsLower = index + 1 < scalars.count && scalars[index + 1].properties.isLowercase
            if !previousIsUpper || nextIsLower { output.append("_") }
        }
        output.append(contentsOf: isUpper ? String(scalar).lowercased().unicodeScalars : String(scalar).unicodeScalars)
    }
    return String(output)
}

/// The same rule on ASCII bytes, without Unicode property lookups (coding keys are ASCII; this runs for
/// every member of every payload encoded or decoded).
private func asciiSnakeCase(_ bytes: [UInt8]) -> String {
    func isUpper(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }
    func isLower(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count + 4)
    for (index, byte) in bytes.enumerated() {
        if isUpper(byte) {
            if index > 0 {
                let nextIsLower = index + 1 < bytes.count && isLower(bytes[index + 1])
                if !isUpper(bytes[index - 1]) || nextIsLower { output.append(UInt8(ascii: "_")) }
            }
            output.append(byte + 0x20)
        } else {
            output.append(byte)
        }
    }
    return String(decoding: output, as: UTF8.self)
}

/// `access_token_id` → `accessTokenID`: snake_case to camelCase with the acronym `ID` kept upper case,
/// the inverse of `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase` for this module's property names.
func camelCase(fromSnakeCase key: String) -> String {
    let words = key.split(separator: "_", omittingEmptySubsequences: true)
    guard let first = words.first else { return key }
    return String(first)
        + words.dropFirst().map { word in
            word == "id" ? "ID" : word.prefix(1).uppercased() + word.dropFirst()
        }.joined()
}

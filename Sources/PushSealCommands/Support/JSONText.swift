import PushSealCore
import PushSealJSON

/// Identifiers in diagnostics: as JSON strings, so control characters and spaces are visible and
/// a message stays one line.
enum JSONText {
    /// `text` as a JSON string literal (`"c1"`), with every scalar that is invisible, reorders or
    /// breaks the line it is shown on (``isHazard(_:)``) written as a `\u` escape — JSON itself
    /// leaves DEL, C1 controls such as U+0085 and the bidirectional overrides such as U+202E
    /// literal. The result is still JSON, and decodes to `text`.
    static func quoted(_ text: String) -> String {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.appendString(text)
        let literal = writer.text
        guard literal.unicodeScalars.contains(where: isHazard) else { return literal }
        var escaped = String.UnicodeScalarView()
        for scalar in literal.unicodeScalars {
            guard isHazard(scalar) else {
                escaped.append(scalar)
                continue
            }
            // UTF-16 code units: a scalar beyond U+FFFF (a tag character) is a surrogate pair.
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16)
                escaped.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            }
        }
        return String(escaped)
    }

    /// Whether `scalar` is not shown as itself where a person reads it: a control character (C0,
    /// DEL, C1), a format character (bidirectional overrides and isolates, zero-width characters,
    /// the byte order mark, tags), a line or paragraph separator, or a space other than U+0020.
    static func isHazard(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        case .spaceSeparator: scalar != " "
        default: false
        }
    }
}

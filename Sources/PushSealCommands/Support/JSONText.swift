import PushSealCore
import PushSealJSON

/// Identifiers in diagnostics: as JSON strings, so control characters and spaces are visible and
/// a message stays one line.
enum JSONText {
    /// `text` as a JSON string literal (`"c1"`).
    static func quoted(_ text: String) -> String {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.appendString(text)
        return writer.text
    }
}

/// Word wrapping for help screens: fixed width (80 columns, so output is the same in a terminal,
/// a pipe and a test). Newlines are kept. Lines that start with a space are preformatted
/// (examples, tables) and never wrapped, so they can be copied as written; keep them short.
package enum TextWrapping {
    /// The width of help screens.
    package static let screenWidth = 80

    /// Wraps `text` to `width` columns. Every output line is prefixed with `indent` spaces except
    /// the first, which gets `firstLineIndent` (default: `indent`). Spacing inside a line is kept
    /// except where it breaks. A word longer than the available width stays whole on its own line.
    package static func wrap(_ text: String, width: Int = screenWidth, indent: Int = 0, firstLineIndent: Int? = nil) -> String {
        var output: [String] = []
        for sourceLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let lineIndent = output.isEmpty ? (firstLineIndent ?? indent) : indent
            if sourceLine.isEmpty {
                output.append("")
                continue
            }
            if sourceLine.first == " " {
                output.append(String(repeating: " ", count: lineIndent) + sourceLine)
                continue
            }
            var line = String(repeating: " ", count: lineIndent)
            var lineHasWord = false
            for (spacing, word) in words(sourceLine) {
                if lineHasWord && line.count + spacing + word.count > width {
                    output.append(line)
                    line = String(repeating: " ", count: indent)
                    lineHasWord = false
                }
                if lineHasWord { line += String(repeating: " ", count: spacing) }
                line += word
                lineHasWord = true
            }
            output.append(line)
        }
        return output.joined(separator: "\n")
    }

    /// The words of `line`, each with the number of spaces before it.
    static func words(_ line: Substring) -> [(spacing: Int, word: Substring)] {
        var result: [(Int, Substring)] = []
        var index = line.startIndex
        while index < line.endIndex {
            var spacing = 0
            while index < line.endIndex && line[index] == " " {
                spacing += 1
                index = line.index(after: index)
            }
            guard index < line.endIndex else { break }
            let start = index
            while index < line.endIndex && line[index] != " " { index = line.index(after: index) }
            result.append((spacing, line[start..<index]))
        }
        return result
    }
}

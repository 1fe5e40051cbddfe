/// Renders help screens, usage lines and usage-error messages in swift-argument-parser's layout
/// (OVERVIEW / USAGE / ARGUMENTS / OPTIONS / SUBCOMMANDS; labels indented 2, help text at
/// column 26; 80 columns).
///
/// A command path is the list of specs from the root to the command, e.g. `[pushseal, store, add]`.
package enum HelpFormatter {
    /// Column where help text starts.
    package static let labelColumnWidth = 26
    /// Indent of labels.
    package static let labelIndent = 2
    /// Continuation lines of a long usage line start under the command name.
    package static let usageIndent = 7
    /// Synopses with more options than this show `[<options>]` instead of each optional one.
    package static let maximumOptionsInUsage = 12

    /// `pushseal store add`.
    package static func commandName(_ path: [CommandSpec]) -> String {
        path.map(\.name).joined(separator: " ")
    }

    /// The usage line without the `USAGE:` prefix, e.g. `pushseal seal --key <key> [<file>]`.
    package static func usage(_ path: [CommandSpec]) -> String {
        let command = path.last!
        let name = commandName(path)
        if let custom = command.usage { return "\(name) \(custom)" }
        if command.run == nil { return "\(name) <subcommand>" }
        var parts: [String] = []
        let visible = command.options.filter { !$0.isHidden }
        if visible.count <= maximumOptionsInUsage {
            for option in visible {
                var text = option.synopsis
                if option.isRepeating { text += " ..." }
                parts.append(option.isRequired ? text : "[\(text)]")
            }
        } else {
            parts.append("[<options>]")
            parts += visible.filter(\.isRequired).map(\.synopsis)
        }
        parts += command.arguments.map(\.synopsis)
        if command.subcommands.contains(where: { !$0.isHidden }) { parts.append("<subcommand>") }
        return parts.isEmpty ? name : "\(name) \(parts.joined(separator: " "))"
    }

    /// `prefix` and the usage line, wrapped at 80 columns between synopsis elements only (an
    /// option stays on one line with its `<value>`), continuation lines under the command name.
    static func renderUsage(_ prefix: String, _ path: [CommandSpec]) -> String {
        let glued = usage(path).replacingOccurrences(of: " <", with: "\u{A0}<")
        return TextWrapping.wrap(prefix + glued, indent: usageIndent, firstLineIndent: 0)
            .replacingOccurrences(of: "\u{A0}", with: " ")
    }

    /// The full help screen, ending with a newline. `version` adds `--version` (root only).
    package static func help(_ path: [CommandSpec], version: String? = nil) -> String {
        let command = path.last!
        var text = ""
        if !command.abstract.isEmpty {
            text += TextWrapping.wrap("OVERVIEW: \(command.abstract)") + "\n\n"
        }
        if !command.discussion.isEmpty {
            text += TextWrapping.wrap(command.discussion) + "\n\n"
        }
        text += renderUsage("USAGE: ", path) + "\n"

        let arguments = command.arguments.map { argument in
            element(label: argument.isRepeating ? "\(argument.label) ..." : argument.label,
                    abstract: argument.abstract, discussion: argument.discussion)
        }
        var options = command.options.filter { !$0.isHidden }.map { option in
            var label = option.namesForHelp
            if let valueName = option.valueName { label += " <\(valueName)>" }
            var notes: [String] = []
            if !option.allowedValues.isEmpty { notes.append("values: \(option.allowedValues.joined(separator: ", "))") }
            if let value = option.defaultValue { notes.append("default: \(value)") }
            let abstract = notes.isEmpty ? option.abstract : "\(option.abstract) (\(notes.joined(separator: "; ")))"
            return element(label: label, abstract: abstract, discussion: option.discussion)
        }
        if version != nil && path.count == 1 { options.append(element(label: "--version", abstract: "Show the version.")) }
        options.append(element(label: "-h, --help", abstract: "Show help information."))
        let subcommands = command.subcommands.filter { !$0.isHidden }.map { element(label: $0.name, abstract: $0.abstract) }

        for (title, elements) in [("ARGUMENTS", arguments), ("OPTIONS", options), ("SUBCOMMANDS", subcommands)] where !elements.isEmpty {
            text += "\n\(title):\n" + elements.joined()
        }
        if !subcommands.isEmpty {
            var names = path.map(\.name)
            names.insert("help", at: 1)
            text += "\n  See '\(names.joined(separator: " ")) <subcommand>' for detailed help.\n"
        }
        return text
    }

    /// One label/help row: the help starts at column 26, or on the next line when the label is
    /// too long.
    static func element(label: String, abstract: String, discussion: String = "") -> String {
        let padded = String(repeating: " ", count: labelIndent) + label
        var row: String
        if abstract.isEmpty {
            row = padded
        } else if padded.count < labelColumnWidth {
            // Wrap as if the first line were indented to the column, then put the label in the indent.
            let wrapped = TextWrapping.wrap(abstract, indent: labelColumnWidth)
            row = padded + String(wrapped.dropFirst(padded.count))
        } else {
            row = padded + "\n" + TextWrapping.wrap(abstract, indent: labelColumnWidth)
        }
        row += "\n"
        if !discussion.isEmpty {
            row += TextWrapping.wrap(discussion, indent: labelColumnWidth) + "\n"
        }
        return row
    }

    /// The text printed on standard error for a usage error, ending with a newline:
    /// `Error: …`, an optional `Help:  …`, `Usage: …` and where to find more.
    package static func errorText(_ error: UsageError, path: [CommandSpec]) -> String {
        var text = "Error: \(error.message)\n"
        if let help = error.help { text += "Help:  \(help)\n" }
        text += renderUsage("Usage: ", path) + "\n"
        text += "  See '\(commandName(path)) --help' for more information.\n"
        return text
    }
}

extension String {
    /// `self` with every `target` replaced (no Foundation).
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

/// The untyped description of a positional argument, shown as `<valueName>` (or `[<valueName>]`
/// when optional): what the parser, the help text and the error messages read. Commands declare
/// an ``Argument``, which makes it.
package struct ArgumentSpec: Sendable {
    /// The name shown between angle brackets.
    package let valueName: String
    /// One-line help, shown in the ARGUMENTS section.
    package let abstract: String
    /// Longer help, shown under the abstract.
    package let discussion: String
    /// The argument may be left out.
    package let isOptional: Bool
    /// The argument takes every remaining positional value (declare it last).
    package let isRepeating: Bool

    /// Memberwise initialiser (``Argument`` builds these).
    init(valueName: String, abstract: String, discussion: String = "", isOptional: Bool, isRepeating: Bool = false) {
        self.valueName = valueName
        self.abstract = abstract
        self.discussion = discussion
        self.isOptional = isOptional
        self.isRepeating = isRepeating
    }

    /// `<name>`, as used in error messages.
    package var label: String { "<\(valueName)>" }

    /// `<name>`, `[<name>]`, `<name> ...` or `[<name> ...]`, as used in usage lines.
    package var synopsis: String {
        var text = label
        if isRepeating { text += " ..." }
        return isOptional ? "[\(text)]" : text
    }
}

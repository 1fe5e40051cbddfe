/// The untyped description of a positional argument, shown as `<valueName>` (or `[<valueName>]`
/// when optional): what the parser, the help text and the error messages read. Commands declare
/// an ``Argument``, which makes it.
public struct ArgumentSpec: Sendable {
    /// The name shown between angle brackets.
    public let valueName: String
    /// One-line help, shown in the ARGUMENTS section.
    public let abstract: String
    /// Longer help, shown under the abstract.
    public let discussion: String
    /// The argument may be left out.
    public let isOptional: Bool
    /// The argument takes every remaining positional value (declare it last).
    public let isRepeating: Bool

    /// Memberwise initialiser (``Argument`` builds these).
    init(valueName: String, abstract: String, discussion: String = "", isOptional: Bool, isRepeating: Bool = false) {
        self.valueName = valueName
        self.abstract = abstract
        self.discussion = discussion
        self.isOptional = isOptional
        self.isRepeating = isRepeating
    }

    /// `<name>`, as used in error messages.
    public var label: String { "<\(valueName)>" }

    /// `<name>`, `[<name>]`, `<name> ...` or `[<name> ...]`, as used in usage lines.
    public var synopsis: String {
        var text = label
        if isRepeating { text += " ..." }
        return isOptional ? "[\(text)]" : text
    }
}

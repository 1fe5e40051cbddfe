/// A positional argument, shown as `<valueName>` (or `[<valueName>]` when optional).
public struct ArgumentSpec: Sendable {
    /// The name shown between angle brackets; also the lookup key in ``ParsedArguments``.
    public let valueName: String
    /// One-line help, shown in the ARGUMENTS section.
    public let abstract: String
    /// Longer help, shown under the abstract.
    public let discussion: String
    /// The argument may be left out.
    public let isOptional: Bool
    /// The argument takes every remaining positional value (declare it last).
    public let isRepeating: Bool

    /// Memberwise initialiser; prefer ``required(_:abstract:discussion:repeating:)`` and
    /// ``optional(_:abstract:discussion:repeating:)``.
    public init(valueName: String, abstract: String, discussion: String = "", isOptional: Bool, isRepeating: Bool = false) {
        self.valueName = valueName
        self.abstract = abstract
        self.discussion = discussion
        self.isOptional = isOptional
        self.isRepeating = isRepeating
    }

    /// An argument that must be given.
    public static func required(_ valueName: String, abstract: String, discussion: String = "", repeating: Bool = false) -> ArgumentSpec {
        ArgumentSpec(valueName: valueName, abstract: abstract, discussion: discussion, isOptional: false, isRepeating: repeating)
    }

    /// An argument that may be left out.
    public static func optional(_ valueName: String, abstract: String, discussion: String = "", repeating: Bool = false) -> ArgumentSpec {
        ArgumentSpec(valueName: valueName, abstract: abstract, discussion: discussion, isOptional: true, isRepeating: repeating)
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

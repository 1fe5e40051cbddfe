/// The untyped description of a named command-line input, an option that takes a value
/// (`--pad-block <n>`) or a flag (`--json`): what the parser, the help text and the error
/// messages read. Commands never build one; they declare an ``Option`` or a ``Flag``, which
/// makes it from the same declaration as the value's type.
package struct OptionSpec: Sendable {
    /// Whether the option takes a value.
    package enum Kind: Sendable, Equatable {
        /// A boolean flag: present or absent, never with a value.
        case flag
        /// An option with a value, shown as `<valueName>` in help and errors.
        case option(valueName: String)
    }

    /// The long name without dashes, e.g. `pad-block` for `--pad-block`.
    package let name: String
    /// An optional one-character short name, e.g. `o` for `-o`.
    package let shortName: Character?
    /// Flag or option.
    package let kind: Kind
    /// One-line help, shown in the OPTIONS section.
    package let abstract: String
    /// Longer help, shown under the abstract (may contain newlines).
    package let discussion: String
    /// The value an absent option reads as, as help shows it: `(default: …)`.
    package let defaultValue: String?
    /// When not empty, the only accepted values; shown as `(values: …)` and enforced by the parser.
    package let allowedValues: [String]
    /// The parser reports `Missing expected argument` when a required option is absent.
    package let isRequired: Bool
    /// The option may be given several times; every value is kept.
    package let isRepeating: Bool
    /// The value is secret (a key): error messages never echo it.
    package let isSecret: Bool
    /// Left out of help and usage (still parsed).
    package let isHidden: Bool

    /// `--name` (and `-short`) as shown in help: `-o, --output`.
    package var namesForHelp: String {
        if let shortName { return "-\(shortName), --\(name)" }
        return "--\(name)"
    }

    /// `--name <value>` or `--name`, as used in usage lines and error messages.
    package var synopsis: String {
        switch kind {
        case .flag: "--\(name)"
        case let .option(valueName): "--\(name) <\(valueName)>"
        }
    }

    /// The value name of an option; nil for a flag.
    package var valueName: String? {
        if case let .option(valueName) = kind { return valueName }
        return nil
    }

    /// Whether this is a flag.
    package var isFlag: Bool { kind == .flag }

    /// Memberwise initialiser (``Option`` and ``Flag`` build these).
    init(
        name: String, shortName: Character? = nil, kind: Kind, abstract: String, discussion: String = "",
        defaultValue: String? = nil, allowedValues: [String] = [], isRequired: Bool = false,
        isRepeating: Bool = false, isSecret: Bool = false, isHidden: Bool = false
    ) {
        precondition(!name.isEmpty && !name.hasPrefix("-"), "option names are declared without dashes: \(name)")
        self.name = name
        self.shortName = shortName
        self.kind = kind
        self.abstract = abstract
        self.discussion = discussion
        self.defaultValue = defaultValue
        self.allowedValues = allowedValues
        self.isRequired = isRequired
        self.isRepeating = isRepeating
        self.isSecret = isSecret
        self.isHidden = isHidden
    }

    /// This option, made required (``Option/required()``).
    func required() -> OptionSpec {
        OptionSpec(
            name: name, shortName: shortName, kind: kind, abstract: abstract, discussion: discussion,
            defaultValue: nil, allowedValues: allowedValues, isRequired: true, isRepeating: isRepeating,
            isSecret: isSecret, isHidden: isHidden)
    }
}

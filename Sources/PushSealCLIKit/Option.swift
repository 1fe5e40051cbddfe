/// A declared option or flag of a command: what ``CommandSpec`` lists, and what its help, its
/// usage line and its parser read (``spec``). ``Option`` and ``Flag`` are the two kinds.
package protocol CommandOption: Sendable {
    /// The option's untyped description (names, value name, help, required, …).
    var spec: OptionSpec { get }
}

/// An option that takes a value, declared once with its type: `--pad-block <n>` as an
/// `Option<Int>`, `--transport <transport>` as an `Option<Transport>`. The declaration gives the
/// help text, the usage line, the parser's checks and the conversion; a command lists it in its
/// ``CommandSpec`` and reads it as its type, `try context.arguments[Self.padBlock]`.
///
/// The type says how it behaves when absent, as in swift-argument-parser:
/// - `Option<T?>`: optional, reads `nil` when absent;
/// - `Option<T>` with a `default:`: reads the default, shown as `(default: …)`;
/// - `Option<T>` without one (or ``required()``): required, the parser reports it missing;
/// - `Option<[T]>`: may be repeated, reads every value given in order.
///
/// A value is converted when it is read, so a command's checks and conversions are reported in
/// the order the command reads them; only the parser's own checks (an enum's words, a missing
/// required option, a repeated one) come first.
package struct Option<Value: Sendable>: CommandOption {
    /// The untyped description the parser and help use.
    package let spec: OptionSpec
    /// Text → value (each value of a repeated option).
    let convert: @Sendable ([String]) throws(ValueError) -> Value
    /// What an absent option reads as; nil when it is required.
    let absent: Value?

    init(spec: OptionSpec, absent: Value?, convert: @escaping @Sendable ([String]) throws(ValueError) -> Value) {
        self.spec = spec
        self.absent = absent
        self.convert = convert
    }

    /// This option, shown and parsed as `spec`, read through `convert`. Every typed
    /// declaration is made from this one.
    static func single<Element: Sendable>(
        _ spec: OptionSpec, absent: Value?, wrap: @escaping @Sendable (Element) -> Value,
        parse: @escaping @Sendable (String) throws(ValueError) -> Element
    ) -> Option {
        Option(spec: spec, absent: absent) { (texts) throws(ValueError) -> Value in wrap(try parse(texts.last!)) }
    }
}

extension Option {
    /// An optional option read through `parse`: `nil` when absent.
    package init<Wrapped: Sendable>(
        _ name: String, short: Character? = nil, valueName: String, abstract: String, discussion: String = "",
        secret: Bool = false, hidden: Bool = false, parse: @escaping @Sendable (String) throws(ValueError) -> Wrapped
    ) where Value == Wrapped? {
        let spec = OptionSpec(
            name: name, shortName: short, kind: .option(valueName: valueName), abstract: abstract, discussion: discussion,
            isSecret: secret, isHidden: hidden)
        self = .single(spec, absent: .some(nil), wrap: { $0 }, parse: parse)
    }

    /// An optional option of an ``ArgumentValue`` type: `nil` when absent.
    package init<Wrapped: ArgumentValue>(
        _ name: String, short: Character? = nil, valueName: String, abstract: String, discussion: String = "",
        secret: Bool = false, hidden: Bool = false
    ) where Value == Wrapped? {
        let spec = OptionSpec(
            name: name, shortName: short, kind: .option(valueName: valueName), abstract: abstract, discussion: discussion,
            allowedValues: Wrapped.allValueStrings, isSecret: secret, isHidden: hidden)
        self = .single(spec, absent: .some(nil), wrap: { $0 }, parse: Wrapped.init(argument:))
    }

    /// An optional integer option in `range`: `nil` when absent; a value outside `range` is a
    /// usage error (`must be between 1 and 20`).
    package init<Wrapped: FixedWidthInteger & Sendable>(
        _ name: String, short: Character? = nil, valueName: String, abstract: String, discussion: String = "",
        hidden: Bool = false, in range: ClosedRange<Wrapped>
    ) where Value == Wrapped? {
        self.init(name, short: short, valueName: valueName, abstract: abstract, discussion: discussion, hidden: hidden) {
            (text) throws(ValueError) in try ValueError.parseInteger(text, in: range)
        }
    }

    /// A required option of an ``ArgumentValue`` type: the parser reports
    /// `Missing expected argument '--name <value>'` when it is absent.
    package init(
        _ name: String, short: Character? = nil, valueName: String, abstract: String, discussion: String = "",
        secret: Bool = false, hidden: Bool = false
    ) where Value: ArgumentValue {
        let spec = OptionSpec(
            name: name, shortName: short, kind: .option(valueName: valueName), abstract: abstract, discussion: discussion,
            allowedValues: Value.allValueStrings, isRequired: true, isSecret: secret, isHidden: hidden)
        self = .single(spec, absent: nil, wrap: { $0 }, parse: Value.init(argument:))
    }

    /// An option of an ``ArgumentValue`` type with a default, shown as `(default: …)`.
    package init(
        _ name: String, short: Character? = nil, valueName: String, abstract: String, discussion: String = "",
        default defaultValue: Value, hidden: Bool = false
    ) where Value: ArgumentValue {
        let spec = OptionSpec(
            name: name, shortName: short, kind: .option(valueName: valueName), abstract: abstract, discussion: discussion,
            defaultValue: defaultValue.argumentDescription, allowedValues: Value.allValueStrings, isHidden: hidden)
        self = .single(spec, absent: defaultValue, wrap: { $0 }, parse: Value.init(argument:))
    }

    /// An integer option in `range` with a default, shown as `(default: …)`.
    package init(
        _ name: String, short: Character? = nil, valueName: String, abstract: String, discussion: String = "",
        default defaultValue: Value, in range: ClosedRange<Value>, hidden: Bool = false
    ) where Value: FixedWidthInteger & ArgumentValue {
        precondition(range.contains(defaultValue), "the default of --\(name) is outside its range")
        let spec = OptionSpec(
            name: name, shortName: short, kind: .option(valueName: valueName), abstract: abstract, discussion: discussion,
            defaultValue: defaultValue.argumentDescription, isHidden: hidden)
        self = .single(spec, absent: defaultValue, wrap: { $0 }) { (text) throws(ValueError) in
            try ValueError.parseInteger(text, in: range)
        }
    }

    /// An option that may be given several times, each value of an ``ArgumentValue`` type;
    /// reads every value in command-line order (none when absent).
    package init<Element: ArgumentValue>(
        _ name: String, short: Character? = nil, valueName: String, abstract: String, discussion: String = "",
        secret: Bool = false, hidden: Bool = false
    ) where Value == [Element] {
        let spec = OptionSpec(
            name: name, shortName: short, kind: .option(valueName: valueName), abstract: abstract, discussion: discussion,
            allowedValues: Element.allValueStrings, isRepeating: true, isSecret: secret, isHidden: hidden)
        self.init(spec: spec, absent: []) { (texts) throws(ValueError) -> [Element] in
            var values: [Element] = []
            values.reserveCapacity(texts.count)
            for text in texts { values.append(try Element(argument: text)) }
            return values
        }
    }

    /// This optional option made required (a shared declaration that one command needs): it
    /// reads as `Wrapped`, and the parser reports it missing.
    package func required<Wrapped>() -> Option<Wrapped> where Value == Wrapped? {
        let convert = self.convert
        return Option<Wrapped>(spec: spec.required(), absent: nil) { (texts) throws(ValueError) -> Wrapped in
            // A present option never converts to nil: every optional declaration wraps its value.
            try convert(texts)!
        }
    }
}

/// A boolean flag, `--json`: present or absent, never with a value. Read as a `Bool`,
/// `context.arguments[Self.json]`.
package struct Flag: CommandOption {
    /// The untyped description the parser and help use.
    package let spec: OptionSpec

    /// A flag `--name` (and `-short`).
    package init(_ name: String, short: Character? = nil, abstract: String, discussion: String = "", hidden: Bool = false) {
        spec = OptionSpec(name: name, shortName: short, kind: .flag, abstract: abstract, discussion: discussion, isHidden: hidden)
    }
}

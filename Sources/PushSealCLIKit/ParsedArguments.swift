/// The result of parsing one command's arguments: option values, flags and positional values,
/// looked up by their declared names. Looking up a name the command does not declare is a
/// programming error (it traps), so a typo cannot silently read "absent".
///
/// Typed accessors turn bad values into usage errors worded like swift-argument-parser's
/// (`The value 'x' is invalid for '--pad-block <n>': …`), so a command's run function can
/// simply `try` them.
public struct ParsedArguments: Sendable {
    /// The command these arguments belong to.
    public let command: CommandSpec
    /// Values given for each option name, in command-line order.
    public let optionValues: [String: [String]]
    /// Names of the flags that were given.
    public let flags: Set<String>
    /// Values of each positional argument.
    public let positionalValues: [String: [String]]

    /// Wraps parsed values (the parser builds these).
    public init(command: CommandSpec, optionValues: [String: [String]], flags: Set<String>, positionalValues: [String: [String]]) {
        self.command = command
        self.optionValues = optionValues
        self.flags = flags
        self.positionalValues = positionalValues
    }

    private func optionSpec(_ name: String) -> OptionSpec {
        guard let option = command.option(named: name) else {
            preconditionFailure("'\(command.name)' declares no option --\(name)")
        }
        return option
    }

    private func argumentSpec(_ name: String) -> ArgumentSpec {
        guard let argument = command.argument(named: name) else {
            preconditionFailure("'\(command.name)' declares no argument <\(name)>")
        }
        return argument
    }

    /// Whether the option or flag was given explicitly (defaults do not count).
    public func isPresent(_ name: String) -> Bool {
        let option = optionSpec(name)
        return option.isFlag ? flags.contains(name) : optionValues[name] != nil
    }

    /// Whether the flag was given.
    public func flag(_ name: String) -> Bool {
        precondition(optionSpec(name).isFlag, "--\(name) is not a flag")
        return flags.contains(name)
    }

    /// The option's value (the last one for a repeating option), or its default, or nil.
    public func value(_ name: String) -> String? {
        let option = optionSpec(name)
        precondition(!option.isFlag, "--\(name) is a flag")
        return optionValues[name]?.last ?? option.defaultValue
    }

    /// Every value given for a repeating option (the default alone when none was given).
    public func values(_ name: String) -> [String] {
        let option = optionSpec(name)
        if let given = optionValues[name] { return given }
        return option.defaultValue.map { [$0] } ?? []
    }

    /// The option's value, or a `Missing expected argument '--name <value>'` usage error.
    public func requiredValue(_ name: String) throws(CLIError) -> String {
        guard let value = value(name) else { throw .usage(.missingOption(optionSpec(name))) }
        return value
    }

    /// The option's value converted by `convert`; a conversion failure becomes
    /// `The value 'x' is invalid for '--name <value>': <reason>` (the value is not echoed for secret options).
    public func value<T>(_ name: String, _ convert: (String) throws(ValueError) -> T) throws(CLIError) -> T? {
        guard let text = value(name) else { return nil }
        do throws(ValueError) {
            return try convert(text)
        } catch {
            throw .usage(.invalidValue(text, for: optionSpec(name), reason: error.reason))
        }
    }

    /// The option's value as a decimal integer in `range`.
    public func integer(_ name: String, in range: ClosedRange<Int64> = Int64.min...Int64.max) throws(CLIError) -> Int64? {
        try value(name) { (text) throws(ValueError) in try ValueError.parseInteger(text, in: range) }
    }

    /// The positional argument's value (the first, for a repeating argument), or nil.
    public func argument(_ name: String) -> String? {
        _ = argumentSpec(name)
        return positionalValues[name]?.first
    }

    /// Every value of a repeating positional argument.
    public func argumentValues(_ name: String) -> [String] {
        _ = argumentSpec(name)
        return positionalValues[name] ?? []
    }

    /// A usage error about `name`'s value, for checks done after parsing.
    public func invalidValue(_ name: String, reason: String) -> CLIError {
        if let option = command.option(named: name) {
            return .usage(.invalidValue(value(name) ?? "", for: option, reason: reason))
        }
        let spec = argumentSpec(name)
        return .usage(.invalidValue(argument(name) ?? "", for: spec, reason: reason))
    }
}

/// Why an option's value could not be converted; becomes a usage error naming the option.
public struct ValueError: Error, Sendable, Equatable {
    /// Shown after the option in the error message, e.g. `not a decimal integer`.
    public let reason: String

    /// A conversion failure.
    public init(_ reason: String) {
        self.reason = reason
    }

    /// Parses a plain decimal integer (optional leading `-`, no `+`, no spaces) in `range`.
    public static func parseInteger(_ text: String, in range: ClosedRange<Int64>) throws(ValueError) -> Int64 {
        guard let value = Int64(text), text.first != "+" else { throw ValueError("not a decimal integer") }
        guard range.contains(value) else {
            if range.upperBound == Int64.max { throw ValueError("must be at least \(range.lowerBound)") }
            if range.lowerBound == Int64.min { throw ValueError("must be at most \(range.upperBound)") }
            throw ValueError("must be between \(range.lowerBound) and \(range.upperBound)")
        }
        return value
    }
}

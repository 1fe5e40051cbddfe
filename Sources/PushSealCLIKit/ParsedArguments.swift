/// The result of parsing one command's arguments, read through the command's own typed
/// declarations: `try arguments[Self.padBlock]` is an `Int`, `arguments[Self.json]` a `Bool`.
/// Reading a declaration the command does not list is a programming error (it traps), so a
/// shared option left out of a command cannot silently read "absent".
///
/// A value is converted when it is read; a bad one becomes a usage error worded like
/// swift-argument-parser's (`The value 'x' is invalid for '--pad-block <n>': …`), so a command's
/// run function can simply `try` it.
package struct ParsedArguments: Sendable {
    /// The command these arguments belong to.
    package let command: CommandSpec
    /// Values given for each option name, in command-line order.
    let optionValues: [String: [String]]
    /// Names of the flags that were given.
    let flags: Set<String>
    /// Values of each positional argument.
    let positionalValues: [String: [String]]

    /// Wraps parsed values (the parser builds these).
    init(command: CommandSpec, optionValues: [String: [String]], flags: Set<String>, positionalValues: [String: [String]]) {
        self.command = command
        self.optionValues = optionValues
        self.flags = flags
        self.positionalValues = positionalValues
    }

    /// `option`'s name, after checking that this command declares it.
    private func declared(_ option: OptionSpec) -> String {
        precondition(command.option(named: option.name) != nil, "'\(command.name)' declares no option --\(option.name)")
        return option.name
    }

    /// The option's value as its type: the value given (the last one; every one, for an
    /// `Option<[T]>`), or what the declaration says an absent option reads as.
    package subscript<Value>(_ option: Option<Value>) -> Value {
        get throws(CLIError) {
            guard let texts = optionValues[declared(option.spec)] else {
                guard let absent = option.absent else { preconditionFailure("the parser let required --\(option.spec.name) be absent") }
                return absent
            }
            do throws(ValueError) {
                return try option.convert(texts)
            } catch {
                throw .usage(.invalidValue(texts.last!, for: option.spec, reason: error.reason))
            }
        }
    }

    /// Whether the flag was given.
    package subscript(_ flag: Flag) -> Bool {
        flags.contains(declared(flag.spec))
    }

    /// The positional argument's value as its type.
    package subscript<Value>(_ argument: Argument<Value>) -> Value {
        get throws(CLIError) {
            let texts = positionalValues[declared(argument.spec)] ?? []
            do throws(ValueError) {
                return try argument.convert(texts)
            } catch {
                throw .usage(.invalidValue(texts.first ?? "", for: argument.spec, reason: error.reason))
            }
        }
    }

    /// `argument`'s name, after checking that this command declares it.
    private func declared(_ argument: ArgumentSpec) -> String {
        precondition(command.argument(named: argument.valueName) != nil, "'\(command.name)' declares no argument <\(argument.valueName)>")
        return argument.valueName
    }

    /// Whether the option or flag was given explicitly (defaults do not count).
    package func isPresent(_ option: some CommandOption) -> Bool {
        let name = declared(option.spec)
        return option.spec.isFlag ? flags.contains(name) : optionValues[name] != nil
    }

    /// A usage error about `option`'s value, for checks done after reading it:
    /// `The value 'x' is invalid for '--name <value>': <reason>`.
    package func invalidValue(_ option: some CommandOption, reason: String) -> CLIError {
        let text = optionValues[declared(option.spec)]?.last ?? option.spec.defaultValue ?? ""
        return .usage(.invalidValue(text, for: option.spec, reason: reason))
    }

    /// A usage error about `argument`'s value, for checks done after reading it.
    package func invalidValue<Value>(_ argument: Argument<Value>, reason: String) -> CLIError {
        let text = positionalValues[declared(argument.spec)]?.first ?? ""
        return .usage(.invalidValue(text, for: argument.spec, reason: reason))
    }
}

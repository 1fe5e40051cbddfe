/// A mistake in the command line itself (exit 64). Printed as swift-argument-parser does:
///
/// ```
/// Error: Unknown option '--kye'. Did you mean '--key'?
/// Usage: pushseal seal [<options>] [<file>]
///   See 'pushseal seal --help' for more information.
/// ```
package struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text after `Error: `.
    package let message: String
    /// The text after `Help:  ` (the option or argument concerned and its help), if any.
    package let help: String?

    /// A usage error with a message of the caller's choosing (for checks a declaration cannot
    /// express, such as "either --key or --store").
    package init(_ message: String, help: String? = nil) {
        self.message = message
        self.help = help
    }

    package var description: String { message }

    /// `Unknown option '--x'`, with `. Did you mean '--y'?` when a declared long option is close.
    package static func unknownOption(_ given: String, suggestion: String?) -> UsageError {
        if let suggestion { return UsageError("Unknown option '\(given)'. Did you mean '\(suggestion)'?") }
        return UsageError("Unknown option '\(given)'")
    }

    /// `Unknown subcommand 'x'` with a close match when there is one.
    package static func unknownSubcommand(_ given: String, of command: String, suggestion: String?) -> UsageError {
        if let suggestion { return UsageError("Unknown subcommand '\(given)' of '\(command)'. Did you mean '\(suggestion)'?") }
        return UsageError("Unknown subcommand '\(given)' of '\(command)'")
    }

    /// `Missing value for '--key <key>'`.
    package static func missingValue(for option: OptionSpec) -> UsageError {
        UsageError("Missing value for '\(option.synopsis)'", help: helpLine(option))
    }

    /// `Missing expected argument '--key <key>'` (a required option is absent).
    package static func missingOption(_ option: OptionSpec) -> UsageError {
        UsageError("Missing expected argument '\(option.synopsis)'", help: helpLine(option))
    }

    /// `Missing expected argument '<file>'`.
    package static func missingArgument(_ argument: ArgumentSpec) -> UsageError {
        UsageError("Missing expected argument '\(argument.label)'", help: "\(argument.label)  \(argument.abstract)")
    }

    /// `Unexpected argument 'x'` or `2 unexpected arguments: 'x', 'y'`.
    package static func unexpectedArguments(_ values: [String]) -> UsageError {
        if values.count == 1 { return UsageError("Unexpected argument '\(values[0])'") }
        return UsageError("\(values.count) unexpected arguments: '\(values.joined(separator: "', '"))'")
    }

    /// `The option '--json' does not take any value, but 'x' was specified.`
    package static func flagWithValue(_ option: OptionSpec, value: String) -> UsageError {
        UsageError("The option '--\(option.name)' does not take any value, but '\(value)' was specified.")
    }

    /// `The option '--key <key>' was given more than once.`
    package static func repeated(_ option: OptionSpec) -> UsageError {
        UsageError("The option '\(option.synopsis)' was given more than once.", help: helpLine(option))
    }

    /// `The value 'x' is invalid for '--pad-block <n>': reason`. Secret options never echo the value.
    package static func invalidValue(_ value: String, for option: OptionSpec, reason: String?) -> UsageError {
        var message = option.isSecret
            ? "The value given for '\(option.synopsis)' is invalid"
            : "The value '\(value)' is invalid for '\(option.synopsis)'"
        if let reason {
            message += ": \(reason)"
        } else if !option.allowedValues.isEmpty {
            message += ". Please provide one of \(quotedList(option.allowedValues))."
        }
        return UsageError(message, help: helpLine(option))
    }

    /// `The value 'x' is invalid for '<file>': reason`.
    package static func invalidValue(_ value: String, for argument: ArgumentSpec, reason: String) -> UsageError {
        UsageError("The value '\(value)' is invalid for '\(argument.label)': \(reason)", help: "\(argument.label)  \(argument.abstract)")
    }

    static func helpLine(_ option: OptionSpec) -> String {
        "\(option.synopsis)  \(option.abstract)"
    }

    /// `'a' and 'b'` or `'a', 'b' or 'c'`.
    static func quotedList(_ values: [String]) -> String {
        let quoted = values.map { "'\($0)'" }
        if quoted.count <= 2 { return quoted.joined(separator: " and ") }
        return quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
    }
}

/// Parses one command's arguments (everything after the command path) against its declaration.
///
/// - `--name value`, `--name=value`, `-n value`; flags take no value (`--json=x` is an error).
/// - The word after an option is its value even when it starts with `-` (base64url keys may),
///   unless it is `--` or an option or flag this command declares; then the value is missing.
///   `--name=value` is never ambiguous.
/// - `--` ends option parsing; everything after it is positional. A lone `-` is positional.
/// - A non-repeating option given twice is an error (silently keeping one of two keys would hide
///   a mistake).
/// - Help flags are handled by ``CommandLineTool`` before parsing.
package enum CommandLineParser {
    /// Parses `arguments` for `command`.
    package static func parse(_ arguments: [String], for command: CommandSpec) throws(UsageError) -> ParsedArguments {
        var optionValues: [String: [String]] = [:]
        var flags: Set<String> = []
        var positionals: [String] = []
        var index = 0
        var optionsEnded = false

        func record(_ option: OptionSpec, inlineValue: String?) throws(UsageError) {
            if option.isFlag {
                if let inlineValue { throw .flagWithValue(option, value: inlineValue) }
                flags.insert(option.name)
                return
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index + 1 < arguments.count, !isOptionLike(arguments[index + 1], for: command) {
                index += 1
                value = arguments[index]
            } else {
                throw .missingValue(for: option)
            }
            if !option.allowedValues.isEmpty && !option.allowedValues.contains(value) {
                throw .invalidValue(value, for: option, reason: nil)
            }
            if optionValues[option.name] != nil && !option.isRepeating { throw .repeated(option) }
            optionValues[option.name, default: []].append(value)
        }

        while index < arguments.count {
            let argument = arguments[index]
            if optionsEnded {
                positionals.append(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument.hasPrefix("--") {
                let (name, inlineValue) = splitInlineValue(argument.dropFirst(2))
                guard let option = command.option(named: name) else {
                    throw .unknownOption("--\(name)", suggestion: suggestion(forLongName: name, in: command))
                }
                try record(option, inlineValue: inlineValue)
            } else if argument.hasPrefix("-") && argument.count > 1 {
                let name = argument.dropFirst()
                guard name.count == 1, let option = command.option(short: name.first!) else {
                    throw .unknownOption(argument, suggestion: nil)
                }
                try record(option, inlineValue: nil)
            } else {
                positionals.append(argument)
            }
            index += 1
        }

        for option in command.options where option.isRequired && optionValues[option.name] == nil {
            throw .missingOption(option)
        }

        var positionalValues: [String: [String]] = [:]
        var remaining = positionals[...]
        for argument in command.arguments {
            if argument.isRepeating {
                if remaining.isEmpty && !argument.isOptional { throw .missingArgument(argument) }
                positionalValues[argument.valueName] = Array(remaining)
                remaining = []
            } else if let value = remaining.popFirst() {
                positionalValues[argument.valueName] = [value]
            } else if !argument.isOptional {
                throw .missingArgument(argument)
            }
        }
        if !remaining.isEmpty { throw .unexpectedArguments(Array(remaining)) }

        return ParsedArguments(command: command, optionValues: optionValues, flags: flags, positionalValues: positionalValues)
    }

    /// `name=value` → (`name`, `value`); `name` → (`name`, nil).
    static func splitInlineValue(_ text: Substring) -> (String, String?) {
        guard let equals = text.firstIndex(of: "=") else { return (String(text), nil) }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }

    /// Whether `word` would be read as an option rather than as the previous option's value.
    static func isOptionLike(_ word: String, for command: CommandSpec) -> Bool {
        if word == "--" || word == "-h" || word == "--help" { return true }
        if word.hasPrefix("--") {
            return command.option(named: splitInlineValue(word.dropFirst(2)).0) != nil
        }
        if word.hasPrefix("-") && word.count == 2 {
            return command.option(short: word.last!) != nil
        }
        return false
    }

    /// The closest declared long option to `--name`, as swift-argument-parser suggests it.
    static func suggestion(forLongName name: String, in command: CommandSpec) -> String? {
        let candidates = command.options.filter { !$0.isHidden }.map { "--\($0.name)" } + ["--help"]
        return EditDistance.suggestion(for: "--\(name)", among: candidates)
    }
}

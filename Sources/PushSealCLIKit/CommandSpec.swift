/// The function that carries out a command once its arguments are parsed. It writes data to
/// `context` and returns the exit status, or throws a ``CLIError`` (a usage error exits 64 with
/// the command's usage; a failure prints `<tool>: error: …` and its hints).
package typealias CommandRun = @Sendable (inout CommandContext) throws(CLIError) -> ExitCode

/// A declarative command: its name, help text, positional arguments, options, and either a run
/// function or subcommands (a group). The parser, the help screens and the error messages are all
/// derived from it; its run function reads each option through the same typed declaration
/// (``Option``, ``Flag``, ``Argument``).
///
/// ```swift
/// enum CountCommand {
///     static let count = Option<Int>("count", valueName: "n", abstract: "How many.", default: 1, in: 1...100)
///     static let json = Flag("json", abstract: "Print JSON.")
///
///     static let spec = CommandSpec(
///         name: "count",
///         abstract: "Count.",
///         options: [count, json],
///         run: run)
///
///     static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
///         let count = try context.arguments[Self.count]
///         context.write(context.arguments[Self.json] ? "{\"count\":\(count)}\n" : "\(count)\n")
///         return .success
///     }
/// }
/// ```
package struct CommandSpec: Sendable {
    /// The name typed on the command line.
    package let name: String
    /// One line, shown after `OVERVIEW:` and in the parent's SUBCOMMANDS list.
    package let abstract: String
    /// Paragraphs shown under the overview (kept as written; lines longer than the screen wrap).
    package let discussion: String
    /// A custom synopsis (after the command path) replacing the generated one, for commands whose
    /// options combine in ways a flat list cannot show, e.g. `(--key <key> | --store <dir>) [<options>]`.
    package let usage: String?
    /// Positional arguments, in order.
    package let arguments: [ArgumentSpec]
    /// Options and flags, in the order help lists them.
    package let options: [OptionSpec]
    /// Subcommands; a command with subcommands and no run function is a group.
    package let subcommands: [CommandSpec]
    /// What the command does; nil for a group.
    package let run: CommandRun?
    /// Left out of the parent's SUBCOMMANDS list (still runnable).
    package let isHidden: Bool

    /// Declares a command.
    package init(
        name: String, abstract: String, discussion: String = "", usage: String? = nil,
        arguments: [any CommandArgument] = [], options: [any CommandOption] = [], subcommands: [CommandSpec] = [],
        isHidden: Bool = false, run: CommandRun? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.usage = usage
        self.arguments = arguments.map(\.spec)
        self.options = options.map(\.spec)
        self.subcommands = subcommands
        self.isHidden = isHidden
        self.run = run
    }

    /// The option with long name `name` (without dashes).
    package func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name }
    }

    /// The option with short name `short`.
    package func option(short: Character) -> OptionSpec? {
        options.first { $0.shortName == short }
    }

    /// The positional argument named `valueName`.
    package func argument(named valueName: String) -> ArgumentSpec? {
        arguments.first { $0.valueName == valueName }
    }

    /// The direct subcommand called `name`.
    package func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }

    /// Declaration mistakes (duplicate names, clashes with `-h/--help`, a required argument after
    /// an optional one, …), one message each; empty when the declaration is sound. Checked by
    /// the tests for the whole command tree.
    package func declarationProblems(path: String = "") -> [String] {
        let here = path.isEmpty ? name : "\(path) \(name)"
        var problems: [String] = []
        var seen: Set<String> = ["help"]
        var seenShort: Set<Character> = ["h"]
        for option in options {
            if !seen.insert(option.name).inserted { problems.append("\(here): option --\(option.name) declared twice or clashes with --help") }
            if let short = option.shortName, !seenShort.insert(short).inserted {
                problems.append("\(here): short name -\(short) declared twice or clashes with -h")
            }
            if option.name.contains("=") || option.name.contains(" ") { problems.append("\(here): bad option name --\(option.name)") }
            if option.abstract.isEmpty { problems.append("\(here): --\(option.name) has no help") }
        }
        var seenArguments: Set<String> = []
        var sawOptional = false
        for (index, argument) in arguments.enumerated() {
            if !seenArguments.insert(argument.valueName).inserted { problems.append("\(here): argument <\(argument.valueName)> declared twice") }
            if argument.isOptional { sawOptional = true } else if sawOptional {
                problems.append("\(here): required <\(argument.valueName)> follows an optional argument")
            }
            if argument.isRepeating && index != arguments.count - 1 { problems.append("\(here): repeating <\(argument.valueName)> is not last") }
            if argument.abstract.isEmpty { problems.append("\(here): <\(argument.valueName)> has no help") }
        }
        if abstract.isEmpty { problems.append("\(here): no abstract") }
        if run == nil && subcommands.isEmpty { problems.append("\(here): neither a run function nor subcommands") }
        if !subcommands.isEmpty && (!arguments.isEmpty || !options.isEmpty) && run == nil {
            problems.append("\(here): a group cannot take arguments or options")
        }
        var seenSubcommands: Set<String> = ["help"]
        for subcommand in subcommands {
            if !seenSubcommands.insert(subcommand.name).inserted { problems.append("\(here): subcommand \(subcommand.name) declared twice (or named help)") }
            problems += subcommand.declarationProblems(path: here)
        }
        return problems
    }
}

import PushSealPlatform

/// A command-line tool: a root command (normally a group of subcommands) and a version.
/// ``main(arguments:)`` resolves the command line, prints help, version or errors, runs the
/// command and returns the exit status.
///
/// Recognised everywhere (before `--`): `-h`/`--help` (help for the deepest command named so
/// far). At the root: `--version`, and `help [<subcommand> …]`, which is also accepted by every
/// group (`pushseal store help add`).
package struct CommandLineTool: Sendable {
    /// The root command; its name is the tool's name in every message.
    package let root: CommandSpec
    /// Printed by `--version`.
    package let version: String
    /// Handed to every command as ``CommandContext/services``: what this executable linked in
    /// (chosen once, in its `main`).
    package let services: (any Sendable)?

    /// A tool.
    package init(root: CommandSpec, version: String, services: (any Sendable)? = nil) {
        self.root = root
        self.version = version
        self.services = services
    }

    /// What a command line asks for.
    package enum Resolution: Sendable {
        /// Print help for the command at this path (exit 0).
        case help([CommandSpec])
        /// Print the version (exit 0).
        case version
        /// A group was named without a subcommand: help on standard error, exit 64.
        case missingSubcommand([CommandSpec])
        /// A mistake in the command line: exit 64.
        case usageError([CommandSpec], UsageError)
        /// Run the command at this path.
        case run([CommandSpec], ParsedArguments)
    }

    /// Works out what `arguments` (without the program name) ask for. No side effects.
    package func resolve(_ arguments: [String]) -> Resolution {
        var path = [root]
        var index = 0
        while let current = path.last, !current.subcommands.isEmpty, index < arguments.count {
            let word = arguments[index]
            if word.hasPrefix("-") { break }
            if word == "help" && current.subcommand(named: "help") == nil {
                return resolveHelp(path: path, names: arguments[(index + 1)...])
            }
            guard let next = current.subcommand(named: word) else {
                if current.run != nil { break }
                let suggestion = EditDistance.suggestion(for: word, among: current.subcommands.filter { !$0.isHidden }.map(\.name))
                return .usageError(path, .unknownSubcommand(word, of: HelpFormatter.commandName(path), suggestion: suggestion))
            }
            path.append(next)
            index += 1
        }
        let rest = Array(arguments[index...])
        let beforeTerminator = rest.prefix { $0 != "--" }
        if beforeTerminator.contains(where: { $0 == "-h" || $0 == "--help" }) { return .help(path) }
        if path.count == 1 && beforeTerminator.contains("--version") { return .version }

        let command = path.last!
        guard command.run != nil else {
            guard let first = rest.first else { return .missingSubcommand(path) }
            if first.hasPrefix("-") {
                var candidates = ["--help"]
                if path.count == 1 { candidates.append("--version") }
                let name = String(CommandLineParser.splitInlineValue(Substring(first)).0)
                let suggestion = first.hasPrefix("--") ? EditDistance.suggestion(for: name, among: candidates) : nil
                return .usageError(path, .unknownOption(name, suggestion: suggestion))
            }
            return .usageError(path, .unexpectedArguments(rest))
        }
        do throws(UsageError) {
            return .run(path, try CommandLineParser.parse(rest, for: command))
        } catch {
            return .usageError(path, error)
        }
    }

    private func resolveHelp(path: [CommandSpec], names: ArraySlice<String>) -> Resolution {
        var path = path
        for name in names {
            if name.hasPrefix("-") { break }
            guard let next = path.last!.subcommand(named: name) else {
                let candidates = path.last!.subcommands.filter { !$0.isHidden }.map(\.name)
                return .usageError(path, .unknownSubcommand(
                    name, of: HelpFormatter.commandName(path), suggestion: EditDistance.suggestion(for: name, among: candidates)))
            }
            path.append(next)
        }
        return .help(path)
    }

    /// Runs the tool on this process's command line (`argv` without the program name), taken as
    /// raw bytes so that an argument that is not valid UTF-8 is a usage error (exit 64) instead
    /// of being silently repaired (``main(argumentBytes:)``).
    package func main() -> ExitCode {
        main(argumentBytes: Self.processArgumentBytes())
    }

    /// This process's arguments, without the program name, as the exact bytes of `argv`.
    package static func processArgumentBytes() -> [[UInt8]] {
        (1..<Int(CommandLine.argc)).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return [] }
            return UnsafeRawBufferPointer(start: argument, count: strlen(argument)).map { $0 }
        }
    }

    /// Runs the tool on raw arguments. Every argument must be valid UTF-8: identifiers (a
    /// conversation id, a label) and paths are compared and stored as exact bytes, and a repaired
    /// argument (U+FFFD for each bad sequence) would make different byte strings collide or name
    /// another file. The first invalid one is a usage error naming it — never echoing its bytes,
    /// which may be a secret.
    package func main(argumentBytes: [[UInt8]]) -> ExitCode {
        switch Self.decodeArguments(argumentBytes) {
        case let .success(arguments):
            return main(arguments: arguments)
        case let .failure(failure):
            StandardStreams.writeStandardError(HelpFormatter.errorText(failure.error, path: commandPath(resolve(failure.repaired))))
            return .usage
        }
    }

    /// Why raw arguments could not be decoded: the usage error, and every argument repaired (to
    /// find the command the error is about).
    package struct ArgumentDecodingFailure: Error, Sendable {
        /// `The value of '--conversation' is not valid UTF-8 …`.
        package let error: UsageError
        /// The arguments with invalid sequences replaced by U+FFFD.
        package let repaired: [String]
    }

    /// The arguments as strings, or the usage error for the first one that is not valid UTF-8.
    package static func decodeArguments(_ raw: [[UInt8]]) -> Result<[String], ArgumentDecodingFailure> {
        var strings: [String] = []
        strings.reserveCapacity(raw.count)
        var firstInvalid: Int?
        for (index, bytes) in raw.enumerated() {
            if let valid = String(validating: bytes, as: UTF8.self) {
                strings.append(valid)
            } else {
                strings.append(String(decoding: bytes, as: UTF8.self))
                if firstInvalid == nil { firstInvalid = index }
            }
        }
        guard let index = firstInvalid else { return .success(strings) }
        let which: String
        let inline = raw[index].firstIndex(of: UInt8(ascii: "=")).map { raw[index][..<$0] }
        if raw[index].starts(with: Array("--".utf8)), let inline, let name = String(validating: inline, as: UTF8.self) {
            which = "The value of '\(name)'"
        } else if index > 0, strings[index - 1].hasPrefix("-"), strings[index - 1] != "--", String(validating: raw[index - 1], as: UTF8.self) != nil {
            which = "The value of '\(strings[index - 1])'"
        } else {
            which = "Argument \(index + 1)"
        }
        let error = UsageError("\(which) is not valid UTF-8; every argument must be UTF-8 text (a repaired one would name something else).")
        return .failure(ArgumentDecodingFailure(error: error, repaired: strings))
    }

    /// The command a resolution is about.
    private func commandPath(_ resolution: Resolution) -> [CommandSpec] {
        switch resolution {
        case let .help(path), let .missingSubcommand(path), let .usageError(path, _), let .run(path, _): path
        case .version: [root]
        }
    }

    /// Runs the tool on `arguments` (without the program name), writing to the standard
    /// streams, and returns the exit status.
    package func main(arguments: [String]) -> ExitCode {
        switch resolve(arguments) {
        case let .help(path):
            return emit(HelpFormatter.help(path, version: version))
        case .version:
            return emit(version + "\n")
        case let .missingSubcommand(path):
            StandardStreams.writeStandardError(HelpFormatter.help(path, version: version))
            return .usage
        case let .usageError(path, error):
            StandardStreams.writeStandardError(HelpFormatter.errorText(error, path: path))
            return .usage
        case let .run(path, parsed):
            var context = CommandContext(toolName: root.name, commandName: HelpFormatter.commandName(path), arguments: parsed, services: services)
            let outcome = Result { () throws(CLIError) -> ExitCode in try path.last!.run!(&context) }
            // Data first (a fallback result or a partial report is still output), then diagnostics.
            var flushFailure: IOError?
            do throws(IOError) { try context.output.flush() } catch { flushFailure = error }
            var status: ExitCode
            switch outcome {
            case let .success(code):
                status = code
            case let .failure(.usage(error)):
                StandardStreams.writeStandardError(HelpFormatter.errorText(error, path: path))
                status = .usage
            case let .failure(.failure(diagnostic)):
                report(diagnostic)
                status = diagnostic.exitCode
            }
            if let flushFailure {
                report(Diagnostic(flushFailure.description))
                if status == .success { status = .failure }
            }
            return status
        }
    }

    /// Prints `<tool>: error: …` and `<tool>: hint: …` lines.
    package func report(_ diagnostic: Diagnostic) {
        var text = "\(root.name): error: \(diagnostic.message)\n"
        for hint in diagnostic.hints { text += "\(root.name): hint: \(hint)\n" }
        StandardStreams.writeStandardError(text)
    }

    private func emit(_ text: String) -> ExitCode {
        var output = OutputBuffer()
        output.append(text)
        do throws(IOError) {
            try output.flush()
            return .success
        } catch {
            report(Diagnostic(error.description))
            return .failure
        }
    }
}

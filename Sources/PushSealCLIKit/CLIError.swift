import PushSealPlatform

/// A runtime diagnostic in the style of age: a short message, then actionable hints.
///
/// ```
/// pushseal: error: cannot read 'payload.json': No such file or directory
/// pushseal: hint: pass the payload on standard input: pushseal inspect < payload.json
/// ```
package struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    /// The text after `<tool>: error: `, lower-case, no final period.
    package var message: String
    /// Lines printed after `<tool>: hint: `.
    package var hints: [String]
    /// The exit status (``ExitCode/failure`` unless a command says otherwise).
    package var exitCode: ExitCode

    /// A diagnostic.
    package init(_ message: String, hints: [String] = [], exitCode: ExitCode = .failure) {
        self.message = message
        self.hints = hints
        self.exitCode = exitCode
    }

    package var description: String { message }
}

/// Everything a command can fail with.
package enum CLIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The command line is wrong: `Error: …`, the command's usage, exit 64.
    case usage(UsageError)
    /// The command failed at run time: `<tool>: error: …`, hints, its exit status.
    case failure(Diagnostic)

    /// A usage error with a custom message (exit 64).
    package static func usage(_ message: String, help: String? = nil) -> CLIError {
        .usage(UsageError(message, help: help))
    }

    /// A runtime failure with optional hints.
    package static func failure(_ message: String, hints: String..., exitCode: ExitCode = .failure) -> CLIError {
        .failure(Diagnostic(message, hints: hints, exitCode: exitCode))
    }

    /// An I/O error with its own hints, plus any the caller adds.
    package static func io(_ error: IOError, hints: String...) -> CLIError {
        .failure(Diagnostic(error.description, hints: error.hints + hints))
    }

    /// The temporary error of a declared command whose implementation is not wired in yet.
    package static func notYetWired(_ commandPath: String, pendingOn component: String) -> CLIError {
        .failure(Diagnostic(
            "'\(commandPath)' is not wired in yet in this build",
            hints: ["its implementation arrives with \(component); see '\(commandPath) --help' for the interface"]))
    }

    /// The exit status this error ends the process with.
    package var exitCode: ExitCode {
        switch self {
        case .usage: .usage
        case let .failure(diagnostic): diagnostic.exitCode
        }
    }

    package var description: String {
        switch self {
        case let .usage(error): error.message
        case let .failure(diagnostic): diagnostic.message
        }
    }
}

import PushSealPlatform

/// What a command's run function works with: its parsed arguments, buffered standard output,
/// and helpers for input and diagnostics that already produce the tool's standard messages.
package struct CommandContext: Sendable {
    /// Default bound on standard input and input files: 16 MiB, far above any payload, well below
    /// anything that would hurt.
    package static let defaultInputLimit = 16 << 20

    /// The tool's name, prefixing diagnostics (`pushseal`).
    package let toolName: String
    /// The full command name, e.g. `pushseal store add`.
    package let commandName: String
    /// The parsed command line.
    package let arguments: ParsedArguments
    /// Standard output, written when the command returns (or throws).
    package var output: OutputBuffer
    /// What the executable linked in for its commands (``CommandLineTool/services``), given once
    /// at start; nil when it gave nothing.
    package let services: (any Sendable)?

    /// A context (built by ``CommandLineTool``; tests may build their own).
    package init(
        toolName: String, commandName: String, arguments: ParsedArguments, output: OutputBuffer = OutputBuffer(), services: (any Sendable)? = nil
    ) {
        self.toolName = toolName
        self.commandName = commandName
        self.arguments = arguments
        self.output = output
        self.services = services
    }

    /// Appends `text` to standard output.
    package mutating func write(_ text: String) {
        output.append(text)
    }

    /// Appends raw bytes to standard output.
    package mutating func write(bytes: some Sequence<UInt8>) {
        output.append(bytes: bytes)
    }

    /// Writes pending output now (long-running commands that report progress).
    package mutating func flush() throws(CLIError) {
        do throws(IOError) { try output.flush() } catch { throw .io(error) }
    }

    /// Prints `<tool>: warning: message` on standard error at once.
    package func warn(_ message: String) {
        StandardStreams.writeStandardError("\(toolName): warning: \(message)\n")
    }

    /// Prints `<tool>: note: message` on standard error at once (progress, notes).
    package func note(_ message: String) {
        StandardStreams.writeStandardError("\(toolName): note: \(message)\n")
    }

    /// Reads the input named by a `[<file>]` argument: the file, or standard input when `path`
    /// is nil or `-`. Empty input is an error naming `what` ("payload", "content", …), with a hint
    /// showing how to provide it (`invocation`, default the command's name, is the command line
    /// the hint shows, e.g. `pushseal inspect --bundle`). When standard input is a terminal,
    /// says so first, since otherwise the command seems to hang.
    package func readInput(
        from path: String?, what: String, invocation: String? = nil, limit: Int = defaultInputLimit
    ) throws(CLIError) -> [UInt8] {
        let bytes: [UInt8]
        if let path, path != "-" {
            do throws(IOError) { bytes = try FileSystem.readFile(at: path, limit: limit) } catch { throw .io(error) }
        } else {
            noteIfTerminal(what)
            do throws(IOError) { bytes = try StandardStreams.readStandardInput(limit: limit) } catch { throw .io(error) }
        }
        if bytes.isEmpty { throw emptyInput(from: path, what: what, invocation: invocation) }
        return bytes
    }

    /// The input named by a `[<file>]` argument (the file, or standard input when `path` is nil
    /// or `-`) as a ``StreamInput``, for input of any length processed as it arrives. Says so
    /// when standard input is a terminal, as ``readInput(from:what:limit:)`` does.
    package func inputStream(from path: String?, what: String) throws(CLIError) -> StreamInput {
        guard let path, path != "-" else {
            noteIfTerminal(what)
            return StreamInput(descriptor: 0, path: nil)
        }
        do throws(IOError) {
            let descriptor = try FileSystem.openForReading(path)
            return StreamInput(descriptor: descriptor, path: path, closesDescriptor: true)
        } catch {
            throw .io(error)
        }
    }

    /// The error for an input (`path` nil or `-`: standard input) that turned out to be empty;
    /// the hint shows `invocation` (default: the command's name).
    package func emptyInput(from path: String?, what: String, invocation: String? = nil) -> CLIError {
        if let path, path != "-" { return .failure("'\(path)' is empty; expected a \(what)") }
        let command = invocation ?? commandName
        return .failure(
            "no \(what) on standard input",
            hints: "pipe one in or name a file: \(command) < FILE, or \(command) FILE")
    }

    private func noteIfTerminal(_ what: String) {
        if StandardStreams.standardInputIsTerminal {
            note("reading the \(what) from the terminal; end it with Ctrl-D (or pass a file)")
        }
    }

    /// Reads a whole file (keys, vector files, …), with the tool's standard messages.
    package func readFile(_ path: String, limit: Int = defaultInputLimit) throws(CLIError) -> [UInt8] {
        do throws(IOError) { return try FileSystem.readFile(at: path, limit: limit) } catch { throw .io(error) }
    }

    /// Writes a file atomically (see ``FileSystem/writeFileAtomically(_:to:permissions:replaceExisting:)``).
    package func writeFile(_ bytes: some Collection<UInt8>, to path: String, permissions: UInt32 = 0o644, replaceExisting: Bool = true) throws(CLIError) {
        do throws(IOError) {
            try FileSystem.writeFileAtomically(bytes, to: path, permissions: .init(permissions), replaceExisting: replaceExisting)
        } catch {
            throw .io(error)
        }
    }
}

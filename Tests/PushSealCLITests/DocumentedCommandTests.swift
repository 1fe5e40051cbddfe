import PushSealCLIKit
import PushSealPlatform
import Testing
import PushSealPlatform

// The example of Docs/CLI.md "Declaring a command", as written there (keep the two the same):
// it compiles against the typed declarations and behaves as the text says.
enum ExampleCommand {
    /// What the payload is for: the parser accepts only these words and help lists them.
    enum Transport: String, CaseIterable, ArgumentValue {
        case apns, fcm
    }

    // Each option is declared once, with its type; help, usage, errors and parsing come from it.
    static let padBlock = Option<Int>("pad-block", valueName: "n", abstract: "Block size.", default: 256, in: 1...4096)
    static let transport = Option<Transport>("transport", valueName: "transport", abstract: "Payload kind.", default: .apns)
    static let key = Option<String?>("key", valueName: "key", abstract: "The key.", secret: true) {
        (text) throws(ValueError) in                                        // custom conversion
        guard text.count == 43 else { throw ValueError("not a key") }
        return text
    }
    static let json = Flag("json", abstract: "Print JSON.")
    static let file = Argument<String?>("file", abstract: "The input; standard input when absent or '-'.")

    static let spec = CommandSpec(
        name: "example",
        abstract: "One line for OVERVIEW and the parent's SUBCOMMANDS list.",
        discussion: "Paragraphs. Lines that start with a space are kept as written.",
        arguments: [file],
        options: [padBlock, transport, key, json],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let block = try arguments[Self.padBlock]                            // Int; usage error if bad
        let transport = try arguments[Self.transport]                       // Transport
        let key = try arguments[Self.key]                                   // String?
        let input = try context.readInput(from: try arguments[Self.file], what: "payload")
        guard input.count <= block else { throw .failure("input too long", hints: "raise --pad-block") }
        context.write(arguments[Self.json] ? "{\"transport\":\"\(transport.rawValue)\",\"key\":\(key != nil)}\n" : "ok\n")
        return .success                                                     // or .fallback (3)
    }
}

@Suite struct DocumentedCommandTests {
    static let root = CommandSpec(name: "tool", abstract: "T.", subcommands: [ExampleCommand.spec])

    /// Runs `example` with `arguments` in process: its output, or the usage error it stopped with.
    func run(_ arguments: [String]) throws -> Result<String, UsageError> {
        switch CommandLineTool(root: Self.root, version: "1").resolve(["example"] + arguments) {
        case let .run(path, parsed):
            var context = CommandContext(toolName: "tool", commandName: HelpFormatter.commandName(path), arguments: parsed)
            do throws(CLIError) {
                _ = try path.last!.run!(&context)
            } catch let .usage(error) {
                return .failure(error)
            } catch {
                Issue.record("failed: \(error)")
            }
            return .success(String(decoding: context.output.pending, as: UTF8.self))
        case let .usageError(_, error):
            return .failure(error)
        default:
            Issue.record("not a run")
            return .success("")
        }
    }

    @Test func theExampleReadsItsOptionsAsTheirTypes() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = directory + "/input"
        try FileSystem.writeFileAtomically(Array("abc".utf8), to: file)
        #expect(try run(["--json", "--transport", "fcm", file]) == .success("{\"transport\":\"fcm\",\"key\":false}\n"))
        #expect(try run(["--key", String(repeating: "k", count: 43), "--json", file]) == .success("{\"transport\":\"apns\",\"key\":true}\n"))
        #expect(try run([file]) == .success("ok\n"))
        #expect(try run(["--transport", "x", file]) == .failure(.invalidValue("x", for: ExampleCommand.transport.spec, reason: nil)))
        #expect(try run(["--pad-block", "0", file]) == .failure(.invalidValue("0", for: ExampleCommand.padBlock.spec, reason: "must be between 1 and 4096")))
        #expect(try run(["--key", "short", file]) == .failure(.invalidValue("short", for: ExampleCommand.key.spec, reason: "not a key")))
        let help = HelpFormatter.help([Self.root, ExampleCommand.spec])
        #expect(help.contains("  --pad-block <n>         Block size. (default: 256)\n"))
        #expect(help.contains("  --transport <transport> Payload kind. (values: apns, fcm; default: apns)\n"))
    }
}

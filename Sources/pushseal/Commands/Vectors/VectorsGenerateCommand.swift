import PushSealCLIKit

/// `pushseal vectors generate`.
enum VectorsGenerateCommand {
    static let spec = CommandSpec(
        name: "generate",
        abstract: "Write the vector file (deterministic: the same bytes on every run).",
        options: [
            .option("output", short: "o", valueName: "file",
                    abstract: "Write to this file (atomically) instead of standard output."),
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        // Integration: build the file with PushSealVectors; write to stdout or
        // context.writeFile(bytes, to: path).
        throw .notYetWired("pushseal vectors generate", pendingOn: "the vectors module (PushSealVectors)")
    }
}

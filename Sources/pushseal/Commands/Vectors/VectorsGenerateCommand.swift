import PushSealCLIKit
import PushSealVectors

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
        let text = VectorSuite.render()
        if let path = context.arguments.value("output") {
            try context.writeFile(Array(text.utf8), to: path)
            context.note("wrote \(VectorSuite.cases().count) cases to \(path)")
        } else {
            context.write(text)
        }
        return .success
    }
}

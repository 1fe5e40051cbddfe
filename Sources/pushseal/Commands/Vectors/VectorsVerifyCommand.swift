import PushSealCLIKit

/// `pushseal vectors verify FILE`.
enum VectorsVerifyCommand {
    static let spec = CommandSpec(
        name: "verify",
        abstract: "Check every case of a vector file against this implementation.",
        discussion: "Exit status 0 when every case passes, 1 when any fails (each failure is listed).",
        arguments: [.required("file", abstract: "The vector file, e.g. Vectors/pushseal-v1.json ('-': standard input).")],
        options: [CommonOptions.json],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        // Integration: let bytes = try context.readInput(from: context.arguments.argument("file"), what: "vector file")
        throw .notYetWired("pushseal vectors verify", pendingOn: "the vectors module (PushSealVectors)")
    }
}

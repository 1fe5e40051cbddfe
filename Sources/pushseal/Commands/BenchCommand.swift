import PushSealCLIKit

/// `pushseal bench`: the benchmark.
enum BenchCommand {
    static let spec = CommandSpec(
        name: "bench",
        abstract: "Measure sealing, opening and key store lookups on this machine.",
        options: [
            .option("iterations", valueName: "n",
                    abstract: "Operations per measurement (default: calibrated to about a second each)."),
            CommonOptions.json,
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        _ = try context.arguments.integer("iterations", in: 1...1_000_000_000)
        throw .notYetWired("pushseal bench", pendingOn: "integration of the provider, receiver and key store modules")
    }
}

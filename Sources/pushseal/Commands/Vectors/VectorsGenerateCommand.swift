import PushSealCLIKit
import PushSealVectors

/// `pushseal vectors generate`.
enum VectorsGenerateCommand {
    static let spec = CommandSpec(
        name: "generate",
        abstract: "Write the vector file (deterministic: the same bytes on every run).",
        discussion: """
            Without --provider: the receiver vectors (Vectors/pushseal-v1.json). With --provider: \
            the provider-side vectors of the size policy (Vectors/pushseal-v1-provider.json). With \
            --store: the key-store at-rest values (Vectors/pushseal-v1-store.json).
            """,
        options: [
            .flag("provider", abstract: "Write the provider-side vectors instead of the receiver vectors."),
            .flag("store", abstract: "Write the key-store vectors instead of the receiver vectors."),
            .option("output", short: "o", valueName: "file",
                    abstract: "Write to this file (atomically) instead of standard output."),
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let provider = context.arguments.flag("provider"), store = context.arguments.flag("store")
        if provider && store { throw .usage("Give either '--provider' or '--store', not both.") }
        let text = provider ? ProviderVectorSuite.render() : store ? StoreVectorSuite.render() : VectorSuite.render()
        if let path = context.arguments.value("output") {
            try context.writeFile(Array(text.utf8), to: path)
            let count = provider ? ProviderVectorSuite.cases().count : store ? StoreVectorSuite.cases().count : VectorSuite.cases().count
            context.note("wrote \(count) cases to \(path)")
        } else {
            context.write(text)
        }
        return .success
    }
}

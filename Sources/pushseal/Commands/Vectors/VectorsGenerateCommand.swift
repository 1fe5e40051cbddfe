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
            --bundles: the key bundle vectors (Vectors/pushseal-v1-bundles.json).
            """,
        options: [
            .flag("provider", abstract: "Write the provider-side vectors instead of the receiver vectors."),
            .flag("bundles", abstract: "Write the key bundle vectors instead of the receiver vectors."),
            .option("output", short: "o", valueName: "file",
                    abstract: "Write to this file (atomically) instead of standard output."),
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let provider = context.arguments.flag("provider")
        let bundles = context.arguments.flag("bundles")
        if provider && bundles { throw .usage("--provider and --bundles cannot be combined") }
        let text = bundles ? BundleVectorSuite.render() : provider ? ProviderVectorSuite.render() : VectorSuite.render()
        if let path = context.arguments.value("output") {
            try context.writeFile(Array(text.utf8), to: path)
            let count = bundles ? BundleVectorSuite.caseCount : provider ? ProviderVectorSuite.cases().count : VectorSuite.cases().count
            context.note("wrote \(count) cases to \(path)")
        } else {
            context.write(text)
        }
        return .success
    }
}

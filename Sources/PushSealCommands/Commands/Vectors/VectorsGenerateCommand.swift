import PushSealCLIKit
import PushSealVectors

/// `pushseal vectors generate`.
enum VectorsGenerateCommand {
    static let provider = Flag("provider", abstract: "Write the provider-side vectors instead of the receiver vectors.")
    static let bundles = Flag("bundles", abstract: "Write the key bundle vectors instead of the receiver vectors.")
    static let store = Flag("store", abstract: "Write the key-store vectors instead of the receiver vectors.")
    static let devices = Flag("devices", abstract: "Write the device key derivation vectors instead of the receiver vectors.")
    static let output = Option<String?>(
        "output", short: "o", valueName: "file", abstract: "Write to this file (atomically) instead of standard output.")

    static let spec = CommandSpec(
        name: "generate",
        abstract: "Write the vector file (deterministic: the same bytes on every run).",
        discussion: """
            Without --provider: the receiver vectors (Vectors/pushseal-v1.json). With --provider: \
            the provider-side vectors of the size policy (Vectors/pushseal-v1-provider.json). With \
            --bundles: the key bundle vectors (Vectors/pushseal-v1-bundles.json).
            --store: the key-store at-rest values (Vectors/pushseal-v1-store.json). --devices: the \
            device key derivation (Vectors/pushseal-v1-devices.json).
            """,
        options: [
            provider, bundles, store, devices, output,
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let provider = context.arguments[Self.provider]
        let bundles = context.arguments[Self.bundles]
        let store = context.arguments[Self.store]
        let devices = context.arguments[Self.devices]
        if [provider, bundles, store, devices].filter({ $0 }).count > 1 {
            throw .usage("Give at most one of '--provider', '--bundles', '--store' and '--devices'.")
        }
        let text = bundles ? BundleVectorSuite.render() : provider ? ProviderVectorSuite.render() : store ? StoreVectorSuite.render()
            : devices ? DeviceKeyVectorSuite.render() : VectorSuite.render()
        if let path = try context.arguments[Self.output] {
            try context.writeFile(Array(text.utf8), to: path)
            let count = bundles ? BundleVectorSuite.caseCount : provider ? ProviderVectorSuite.cases().count
                : store ? StoreVectorSuite.cases().count : devices ? DeviceKeyVectorSuite.caseCount : VectorSuite.cases().count
            context.note("wrote \(count) cases to \(path)")
        } else {
            context.write(text)
        }
        return .success
    }
}

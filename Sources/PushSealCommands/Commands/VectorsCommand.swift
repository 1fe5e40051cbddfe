import PushSealCLIKit

/// `pushseal vectors`: the cross-implementation test vectors.
enum VectorsCommand {
    static let spec = CommandSpec(
        name: "vectors",
        abstract: "Generate or verify the cross-implementation test vectors (Vectors/pushseal-v1.json).",
        discussion: """
            The vectors are generated deterministically from fixed seeds, so 'generate' \
            reproduces the published file byte for byte; 'verify' runs every case through this \
            implementation (open, and re-seal where resealable).
            """,
        subcommands: [VectorsGenerateCommand.spec, VectorsVerifyCommand.spec])
}

import PushSealCLIKit

/// `pushseal store init`.
enum StoreInitCommand {
    static let spec = CommandSpec(
        name: "init",
        abstract: "Create a key store: the directory (0700), its database and master key (0600).",
        discussion: """
            An existing master key file is kept, never overwritten. Running init on an existing \
            store checks it and changes nothing.
            """,
        options: StoreCommand.locationOptions,
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        _ = try StoreCommand.location(context.arguments)
        throw StoreCommand.notYetWired("init")
    }
}

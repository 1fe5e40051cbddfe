import PushSealCLIKit

/// `pushseal store list`.
enum StoreListCommand {
    static let spec = CommandSpec(
        name: "list",
        abstract: "List keys (never the key bytes): conversation, epoch, kid, times, label, current.",
        options: StoreCommand.locationOptions + [
            .option("conversation", valueName: "cid", abstract: "Only this conversation's epochs."),
            CommonOptions.json,
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        _ = try StoreCommand.location(context.arguments)
        throw StoreCommand.notYetWired("list")
    }
}

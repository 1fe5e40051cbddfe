import PushSealCLIKit

/// `pushseal store remove`.
enum StoreRemoveCommand {
    static let spec = CommandSpec(
        name: "remove",
        abstract: "Remove a conversation's keys (all epochs, or one --epoch), e.g. on logout.",
        discussion: "Notifications sealed under a removed key then fall back with unknown_key.",
        options: StoreCommand.locationOptions + [CommonOptions.conversation.required(), StoreCommand.epoch],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        _ = try StoreCommand.location(context.arguments)
        _ = try StoreCommand.epoch(context.arguments)
        throw StoreCommand.notYetWired("remove")
    }
}

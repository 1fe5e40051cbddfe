import PushSealCLIKit
import PushSealCore

/// `pushseal store add`.
enum StoreAddCommand {
    static let spec = CommandSpec(
        name: "add",
        abstract: "Add a conversation key as a new epoch (generated unless --key/--key-file is given).",
        discussion: """
            Prints {"conversation":…,"epoch":…,"kid":…}; never the key. Provision the same key \
            to a device store with 'pushseal store get' on the provider side and \
            'pushseal store add --key-file' on the device side.
            """,
        options: StoreCommand.locationOptions + [
            CommonOptions.conversation.required(),
            CommonOptions.key, CommonOptions.keyFile,
            .option("label", valueName: "text", abstract: "A label for the key (for people; not secret, not used in crypto)."),
            .option("not-after", valueName: "unix-time", abstract: "When the key stops being valid, in seconds since 1970."),
            CommonOptions.now,
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        _ = try StoreCommand.location(context.arguments)
        _ = try ArgumentDecoding.conversationKey(context)
        _ = try context.arguments.integer("not-after", in: 0...NotificationContent.maximumTimestamp)
        _ = try context.arguments.integer("now", in: 0...NotificationContent.maximumTimestamp)
        throw StoreCommand.notYetWired("add")
    }
}

import PushSealCLIKit
import PushSealCore

/// `pushseal store rotate`.
enum StoreRotateCommand {
    static let spec = CommandSpec(
        name: "rotate",
        abstract: "Start a new epoch for a conversation; the previous one stays valid for a grace period.",
        discussion: """
            APNs stores undelivered notifications for up to 30 days and FCM for up to 28, so the \
            retired key stays usable for --grace seconds before 'store purge' removes it. Prints \
            {"conversation":…,"epoch":…,"kid":…}.
            """,
        options: StoreCommand.locationOptions + [
            CommonOptions.conversation.required(),
            CommonOptions.key, CommonOptions.keyFile,
            .option("grace", valueName: "seconds", abstract: "How long the retired epoch stays valid (31 days).",
                    defaultValue: "2678400"),
            CommonOptions.now,
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        _ = try StoreCommand.location(context.arguments)
        _ = try ArgumentDecoding.conversationKey(context)
        _ = try context.arguments.integer("grace", in: 0...Int64(Int32.max))
        _ = try context.arguments.integer("now", in: 0...NotificationContent.maximumTimestamp)
        throw StoreCommand.notYetWired("rotate")
    }
}

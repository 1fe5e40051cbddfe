import PushSealCLIKit
import PushSealCore

/// `pushseal store purge`.
enum StorePurgeCommand {
    static let spec = CommandSpec(
        name: "purge",
        abstract: "Delete retired epochs past their grace period and prune the duplicate log.",
        options: StoreCommand.locationOptions + [CommonOptions.now, CommonOptions.maxAge],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        _ = try StoreCommand.location(context.arguments)
        _ = try context.arguments.integer("now", in: 0...NotificationContent.maximumTimestamp)
        _ = try context.arguments.integer("max-age", in: 0...Int64.max)
        throw StoreCommand.notYetWired("purge")
    }
}

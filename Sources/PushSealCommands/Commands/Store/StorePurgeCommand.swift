import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import PushSealJSON

/// `pushseal store purge`.
enum StorePurgeCommand {
    static let grace = Option<Int64>(
        "grace", valueName: "seconds", abstract: "How long retired keys are kept after their not-after time (31 days).",
        default: 2_678_400, in: 0...Int64(Int32.max))
    static let pruneDuplicateLog = Flag(
        "prune-duplicate-log", abstract: "Also delete duplicate-log entries older than the freshness window.")

    static let spec = CommandSpec(
        name: "purge",
        abstract: "Delete retired keys after their grace period.",
        discussion: """
            Prints {"deliveriesPruned":null|N,"removed":N}: the number of keys deleted (those \
            whose not-after time is more than --grace seconds before --now; APNs stores \
            undelivered notifications for up to 30 days and FCM for up to 28), and of \
            duplicate-log entries pruned. A purged key can open again only from a copy of the \
            store made before the purge; 'store rotate-master' makes such copies useless.

            The duplicate log is pruned only with --prune-duplicate-log: entries recorded more \
            than --max-age + --max-skew seconds ago (the receiver's freshness window; \
            notifications that old fall back as stale before the log is consulted). A receiver \
            ('pushseal open --store', the app's extension) already prunes with its own window \
            each time it records a delivery; pruning here with a shorter window than the app \
            uses would let replays inside the difference go unflagged, so it is never implicit.
            """,
        options: StoreCommand.locationOptions + [
            CommonOptions.now,
            grace,
            pruneDuplicateLog,
            CommonOptions.maxAge,
            CommonOptions.maxSkew,
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let location = try StoreCommand.location(context, acceptsURI: true)
        let now = try arguments[CommonOptions.now]
        let maxAge = try arguments[CommonOptions.maxAge]
        let maxSkew = try arguments[CommonOptions.maxSkew]
        let grace = try arguments[Self.grace]
        let pruneLog = arguments[Self.pruneDuplicateLog]
        if !pruneLog {
            for option in [CommonOptions.maxAge, CommonOptions.maxSkew] where arguments.isPresent(option) {
                throw .usage("'\(option.spec.synopsis)' sets the duplicate log's window; add '\(Self.pruneDuplicateLog.spec.synopsis)'.")
            }
        }

        // The duplicate log is the device's; a provider key directory on PostgreSQL has none.
        if pruneLog && location.isConnectionURI {
            throw .usage("'--prune-duplicate-log' prunes a device store's duplicate log; a PostgreSQL key directory has none.")
        }
        let store = try StoreCommand.openDirectory(location, clock: StoreCommand.clock(now))
        let removed = try StoreCommand.run(location) { () throws(KeyDirectoryError) in try store.purgeExpired(gracePeriod: grace) }
        var pruned: Int?
        if pruneLog, let store = (store as? SQLiteKeyDirectory)?.store {
            let (window, overflow) = maxAge.addingReportingOverflow(maxSkew)
            pruned = try StoreCommand.run(location) { () throws(KeyDirectoryError) in
                try store.pruneDeliveries(olderThan: overflow ? Int64.max : window)
            }
        }

        var writer = JSONWriter(capacity: 48)
        writer.appendRaw("{\"deliveriesPruned\":")
        if let pruned { writer.appendInteger(Int64(pruned)) } else { writer.appendRaw("null") }
        writer.appendRaw(",\"removed\":")
        writer.appendInteger(Int64(removed))
        writer.appendRaw("}\n")
        context.write(bytes: writer.bytes)
        return .success
    }
}

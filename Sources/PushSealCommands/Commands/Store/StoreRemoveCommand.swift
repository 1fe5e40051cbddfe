import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import PushSealJSON

/// `pushseal store remove`.
enum StoreRemoveCommand {
    static let kid = StoreCommand.kid(abstract: "Remove the key with this key id (base64url).")
    static let all = Flag("all", abstract: "Remove every key and the duplicate log (logout wipe).")

    static let spec = CommandSpec(
        name: "remove",
        abstract: "Remove one key (--kid, or --conversation with --epoch), a conversation's keys, or everything (--all).",
        discussion: """
            Prints {"duplicateLogCleared":…,"removed":N}: how many keys were removed.

            --kid <kid>, or --conversation <cid> --epoch <n>, removes that one key; it is an \
            error when the store does not hold it. --conversation <cid> alone removes every \
            epoch of the conversation (none is fine: removed 0). --all is the logout wipe: every \
            key and the whole duplicate log, in one transaction, with the freed pages zeroed. \
            On a device store (one with a device key) it also deletes the bundle records and \
            replaces the device key, so no key bundle recorded before the wipe can open again; it \
            then also prints "deviceKeyReplaced":true and the new "registration" to send to the \
            backend. For a complete erase also delete the master key file afterwards.

            Notifications sealed under a removed key then fall back with unknown_key.
            """,
        usage: "--dir <dir> (--kid <kid> | --conversation <cid> [--epoch <n>] | --all) [<options>]",
        options: StoreCommand.locationOptions + [
            StoreCommand.conversation,
            StoreCommand.epoch,
            kid,
            all,
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let location = try StoreCommand.location(context, acceptsURI: true)
        let epoch = try arguments[StoreCommand.epoch]
        let kid = try arguments[Self.kid]
        let conversation = try arguments[StoreCommand.conversation]
        let all = arguments[Self.all]
        if all && (kid != nil || conversation != nil || epoch != nil) {
            throw .usage("'--all' removes everything; drop '--kid', '--conversation' and '--epoch'.")
        }
        if kid != nil && epoch != nil {
            throw .usage("'--kid <kid>' names one key already; drop '--epoch <n>'.")
        }
        if epoch != nil && conversation == nil {
            throw .usage("'--epoch <n>' needs '--conversation <cid>'.")
        }
        if !all && kid == nil && conversation == nil {
            throw .usage("Say what to remove: '--kid <kid>', '--conversation <cid>' (with an optional '--epoch <n>'), or '--all'.")
        }

        // A PostgreSQL key directory is shared by many nodes: it is never emptied in one go.
        if all && location.isConnectionURI {
            throw .usage("'--all' empties a SQLite key store only; on a PostgreSQL key directory remove conversations with '--conversation <cid>'.")
        }
        let store = try StoreCommand.openDirectory(location)
        let removed: Int
        var newRegistration: DeviceRegistration?
        if all {
            removed = try StoreCommand.run(location) { () throws(KeyDirectoryError) -> Int in
                guard let store = (store as? SQLiteKeyDirectory)?.store else { return 0 }
                // A device store: the logout wipe also replaces the device key (SPEC §16.5).
                guard (try? store.deviceRegistration()) != nil else { return try store.removeAll() }
                let wiped = try store.wipeDevice()
                newRegistration = wiped.registration
                return wiped.removed
            }
        } else if let kid {
            if let conversation {
                let stored = try StoreCommand.run(location) { () throws(KeyDirectoryError) in try store.items(conversation: conversation) }
                guard stored.contains(where: { $0.keyID == kid }) else {
                    throw .failure(
                        "conversation \(JSONText.quoted(conversation)) has no key with id \(kid)",
                        hints: "list its keys with: pushseal store list \(location.commandLineOptions) --conversation \(ShellQuoting.quote(conversation))")
                }
            }
            try remove(kid, store: store, location: location)
            removed = 1
        } else if let conversation, let epoch {
            let items = try StoreCommand.run(location) { () throws(KeyDirectoryError) in try store.items(conversation: conversation) }
            guard let item = items.first(where: { $0.epoch == epoch }) else {
                let epochs = items.map { String($0.epoch) }.joined(separator: ", ")
                throw .failure(
                    "conversation \(JSONText.quoted(conversation)) has no epoch \(epoch)"
                        + (items.isEmpty ? " (it has no keys)" : " (it has \(epochs))"),
                    hints: "list the store's keys with: pushseal store list \(location.commandLineOptions)")
            }
            try remove(item.keyID, store: store, location: location)
            removed = 1
        } else {
            let conversation = conversation!
            removed = try StoreCommand.run(location) { () throws(KeyDirectoryError) in try store.removeConversation(conversation) }
            if removed == 0 { context.note("conversation \(JSONText.quoted(conversation)) had no keys; nothing removed") }
        }

        var writer = JSONWriter(capacity: 48)
        writer.appendRaw("{\"duplicateLogCleared\":")
        writer.appendRaw(all ? "true" : "false")
        writer.appendRaw(",\"removed\":")
        writer.appendInteger(Int64(removed))
        if let newRegistration {
            writer.appendRaw(",\"deviceKeyReplaced\":true,\"registration\":")
            writer.appendRaw(bytes: Array(newRegistration.json.utf8))
        }
        writer.appendRaw("}\n")
        context.write(bytes: writer.bytes)
        return .success
    }

    private static func remove(_ kid: KeyID, store: any KeyDirectory, location: StoreCommand.Location) throws(CLIError) {
        do throws(KeyDirectoryError) {
            try store.remove(keyID: kid)
        } catch .itemNotFound {
            throw KeyStoreDiagnostics.noSuchKey(kid, location: location)
        } catch {
            throw KeyStoreDiagnostics.error(error, location: location)
        }
    }
}

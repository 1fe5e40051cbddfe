import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealJSON

/// `pushseal store get`: the explicit key export.
enum StoreGetCommand {
    static let spec = CommandSpec(
        name: "get",
        abstract: "Export a key: the conversation's current epoch, a given --epoch, or --kid.",
        discussion: """
            Prints {"conversation":…,"epoch":…,"key":…,"kid":…}. The key is a secret: this is \
            the one store command that prints it, for provisioning devices.

            The current epoch is the highest one that is live (no not-after time, or not yet \
            past it, at --now). --epoch and --kid also export a retired or expired key that is \
            still stored. With --kid and --conversation, the key must belong to that conversation.

            Example (provisioning a device store):
              pushseal store get --dir keys --conversation c1 > k.json
              pushseal store add --dir device --conversation c1 --epoch 1 --key-file k.json
            """,
        options: StoreCommand.locationOptions + [
            StoreCommand.conversation,
            StoreCommand.epoch,
            StoreCommand.kid,
            CommonOptions.now,
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let location = try StoreCommand.location(context, acceptsURI: true)
        let epoch = try arguments[StoreCommand.epoch]
        let kid = try arguments[StoreCommand.kid]
        if kid == nil && !arguments.isPresent(StoreCommand.conversation) {
            throw .usage("Give '--conversation <cid>' (with an optional '--epoch <n>') or '--kid <kid>'.")
        }
        if kid != nil && arguments.isPresent(StoreCommand.epoch) {
            throw .usage("'--kid <kid>' names one key already; drop '--epoch <n>'.")
        }
        let conversation = try arguments[StoreCommand.conversation]
        let now = try arguments[CommonOptions.now]

        let store = try StoreCommand.openDirectory(location, clock: StoreCommand.clock(now))
        let stored: StoredKey
        if let kid {
            stored = try fetch(kid, store: store, location: location)
            if let conversation, !stored.item.conversation.utf8.elementsEqual(conversation.utf8) {
                throw .failure(
                    "key \(kid) belongs to conversation \(JSONText.quoted(stored.item.conversation)), not \(JSONText.quoted(conversation))",
                    hints: "drop --conversation to export it anyway, or check the key id")
            }
        } else if let conversation, let epoch {
            let items = try StoreCommand.run(location) { () throws(KeyDirectoryError) in try store.items(conversation: conversation) }
            guard let item = items.first(where: { $0.epoch == epoch }) else {
                throw noSuchEpoch(epoch, conversation: conversation, items: items, location: location)
            }
            stored = try fetch(item.keyID, store: store, location: location)
        } else {
            let conversation = conversation!
            do throws(KeyDirectoryError) {
                stored = try store.currentKey(conversation: conversation)
            } catch .itemNotFound {
                let items = try StoreCommand.run(location) { () throws(KeyDirectoryError) in try store.items(conversation: conversation) }
                throw noCurrentKey(conversation, items: items, location: location)
            } catch {
                throw KeyStoreDiagnostics.error(error, location: location)
            }
        }

        var writer = JSONWriter(capacity: 160)
        writer.appendRaw("{\"conversation\":")
        writer.appendString(stored.item.conversation)
        writer.appendRaw(",\"epoch\":")
        writer.appendInteger(stored.item.epoch)
        writer.appendRaw(",\"key\":")
        stored.key.withUnsafeBytes { writer.appendString(Base64URL.encode($0)) }
        writer.appendRaw(",\"kid\":")
        writer.appendString(stored.item.keyID.base64URL)
        writer.appendRaw("}\n")
        context.write(bytes: writer.bytes)
        return .success
    }

    /// The key with id `kid`; a missing one is reported with the id.
    private static func fetch(_ kid: KeyID, store: any KeyDirectory, location: StoreCommand.Location) throws(CLIError) -> StoredKey {
        do throws(KeyDirectoryError) {
            return try store.key(for: kid)
        } catch .itemNotFound {
            throw KeyStoreDiagnostics.noSuchKey(kid, location: location)
        } catch {
            throw KeyStoreDiagnostics.error(error, location: location)
        }
    }

    private static func noSuchEpoch(_ epoch: Int64, conversation: String, items: [KeyItem], location: StoreCommand.Location) -> CLIError {
        if items.isEmpty { return noKeys(conversation, location: location) }
        let epochs = items.map { String($0.epoch) }.joined(separator: ", ")
        return .failure(
            "conversation \(JSONText.quoted(conversation)) has no epoch \(epoch) (it has \(epochs))",
            hints: "list them with: pushseal store list \(location.commandLineOptions) --conversation \(ShellQuoting.quote(conversation))")
    }

    private static func noCurrentKey(_ conversation: String, items: [KeyItem], location: StoreCommand.Location) -> CLIError {
        if items.isEmpty { return noKeys(conversation, location: location) }
        return .failure(
            "conversation \(JSONText.quoted(conversation)) has no current key: its newest epoch is past its not-after time or was removed (an older epoch is never used)",
            hints: "start a new epoch with: pushseal store rotate \(location.commandLineOptions) --conversation \(ShellQuoting.quote(conversation))",
            "or export an expired one with --epoch (epochs \(items.map { String($0.epoch) }.joined(separator: ", ")))")
    }

    private static func noKeys(_ conversation: String, location: StoreCommand.Location) -> CLIError {
        .failure(
            "conversation \(JSONText.quoted(conversation)) has no keys in the store",
            hints: "add one with: pushseal store add \(location.commandLineOptions) --conversation \(ShellQuoting.quote(conversation))",
            "list the store's conversations with: pushseal store list \(location.commandLineOptions)")
    }
}

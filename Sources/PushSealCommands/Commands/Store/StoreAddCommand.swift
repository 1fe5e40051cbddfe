import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore

/// `pushseal store add`.
enum StoreAddCommand {
    static let epoch = StoreCommand.epoch(abstract: "The key's epoch (default: the conversation's highest epoch + 1).")
    static let notAfter = Option<Int64?>(
        "not-after", valueName: "unix-time", abstract: "When the key stops being valid, in seconds since 1970.",
        in: 0...NotificationContent.maximumTimestamp)

    static let spec = CommandSpec(
        name: "add",
        abstract: "Add a conversation key as a new epoch (generated unless --key/--key-file is given).",
        discussion: """
            Prints {"conversation":…,"epoch":…,"kid":…}; never the key. The epoch is the \
            conversation's next one (1 for a new conversation) unless --epoch is given.

            Provision the same key to a device store with 'pushseal store get' on the provider \
            side and 'pushseal store add --key-file … --epoch …' on the device side (a key file \
            keeps the key out of the process list; it may hold the JSON 'store get' prints).

            'add' never retires earlier epochs; 'store rotate' does.
            """,
        options: StoreCommand.locationOptions + [
            StoreCommand.requiredConversation,
            CommonOptions.key, CommonOptions.keyFile,
            epoch,
            StoreCommand.label,
            notAfter,
            CommonOptions.now,
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let location = try StoreCommand.location(context, acceptsURI: true)
        let conversation = try StoreCommand.readNewConversation(arguments)
        let givenEpoch = try arguments[Self.epoch]
        let notAfter = try arguments[Self.notAfter]
        let now = try arguments[CommonOptions.now]
        let label = try arguments[StoreCommand.label]
        let key = try ArgumentDecoding.conversationKey(context) ?? ConversationKey.generate()

        let store = try StoreCommand.openDirectory(location, clock: StoreCommand.clock(now))
        do throws(KeyDirectoryError) {
            // Without --epoch the store picks the next epoch in its write transaction.
            let item = try store.add(key, conversation: conversation, epoch: givenEpoch, label: label, notAfter: notAfter)
            if let notAfter, notAfter < (now ?? systemClock()) {
                context.warn("the key is already past its --not-after time: it is never current, and 'store purge' removes it")
            }
            StoreCommand.writeItemSummary(item, to: &context)
            return .success
        } catch .duplicateItem {
            throw try duplicate(key: key.id, conversation: conversation, epoch: givenEpoch, store: store, location: location)
        } catch {
            throw KeyStoreDiagnostics.error(error, location: location)
        }
    }

    /// Says which of the two uniqueness rules the new key broke (with an automatic epoch, only
    /// the key itself can be a duplicate).
    private static func duplicate(
        key kid: KeyID, conversation: String, epoch: Int64?, store: any KeyDirectory, location: StoreCommand.Location
    ) throws(CLIError) -> CLIError {
        let items = try StoreCommand.run(location) { () throws(KeyDirectoryError) in try store.items(conversation: nil) }
        if let existing = items.first(where: { $0.keyID == kid }) {
            return .failure(
                "the store already holds this key (kid \(kid)) as epoch \(existing.epoch) of conversation \(JSONText.quoted(existing.conversation))",
                hints: "a key belongs to exactly one (conversation, epoch); generate a new key for a new epoch (omit --key/--key-file)")
        }
        guard let epoch else {
            return .failure("the store refused the key for conversation \(JSONText.quoted(conversation)) as a duplicate", hints: "try again")
        }
        let next = (items.filter { $0.conversation.utf8.elementsEqual(conversation.utf8) }.map(\.epoch).max() ?? 0) + 1
        return .failure(
            "conversation \(JSONText.quoted(conversation)) already has epoch \(epoch)",
            hints: "give another --epoch, or omit it to use the next one (\(next))",
            "or remove the existing one first: pushseal store remove \(location.commandLineOptions) --conversation \(ShellQuoting.quote(conversation)) --epoch \(epoch)")
    }
}

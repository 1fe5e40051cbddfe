import PushSealCLIKit
import PushSealCore
import PushSealKeyStore

/// `pushseal store add`.
enum StoreAddCommand {
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
            CommonOptions.conversation.required(),
            CommonOptions.key, CommonOptions.keyFile,
            OptionSpec.option(
                "epoch", valueName: "n", abstract: "The key's epoch (default: the conversation's highest epoch + 1)."),
            StoreCommand.label,
            .option("not-after", valueName: "unix-time", abstract: "When the key stops being valid, in seconds since 1970."),
            CommonOptions.now,
        ],
        run: run)

    /// How often a computed next epoch is recomputed when another process took it meanwhile.
    static let epochAttempts = 5

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let location = try StoreCommand.location(arguments)
        let conversation = try StoreCommand.conversation(arguments)!
        let givenEpoch = try StoreCommand.epoch(arguments)
        let notAfter = try arguments.integer("not-after", in: 0...NotificationContent.maximumTimestamp)
        let now = try StoreCommand.now(arguments)
        let label = arguments.value("label")
        let key = try ArgumentDecoding.conversationKey(context) ?? ConversationKey.generate()

        let store = try StoreCommand.open(location, clock: StoreCommand.clock(now))
        var attempt = 0
        while true {
            attempt += 1
            let epoch: Int64
            if let givenEpoch {
                epoch = givenEpoch
            } else {
                let items = try StoreCommand.run(location) { () throws(KeyStoreError) in try store.items(conversation: conversation) }
                epoch = (items.last?.epoch ?? 0) + 1
            }
            do throws(KeyStoreError) {
                let item = try store.add(key, conversation: conversation, epoch: epoch, label: label, notAfter: notAfter)
                if let notAfter, notAfter < (now ?? systemClock()) {
                    context.warn("the key is already past its --not-after time: it is never current, and 'store purge' removes it")
                }
                StoreCommand.writeItemSummary(item, to: &context)
                return .success
            } catch .duplicateItem {
                // The epoch was free a moment ago: another process added one. Take the next.
                if givenEpoch == nil, attempt < epochAttempts, try !holds(key.id, store: store, location: location) { continue }
                throw try duplicate(key: key.id, conversation: conversation, epoch: epoch, automaticEpoch: givenEpoch == nil,
                                    store: store, location: location)
            } catch {
                throw KeyStoreDiagnostics.error(error, location: location)
            }
        }
    }

    /// Whether the store holds a key with id `kid` (a duplicate key, rather than a taken epoch).
    private static func holds(_ kid: KeyID, store: KeyStore, location: StoreCommand.Location) throws(CLIError) -> Bool {
        try StoreCommand.run(location) { () throws(KeyStoreError) in try store.items().contains { $0.keyID == kid } }
    }

    /// Says which of the two uniqueness rules the new key broke.
    private static func duplicate(
        key kid: KeyID, conversation: String, epoch: Int64, automaticEpoch: Bool, store: KeyStore, location: StoreCommand.Location
    ) throws(CLIError) -> CLIError {
        let items = try StoreCommand.run(location) { () throws(KeyStoreError) in try store.items() }
        if let existing = items.first(where: { $0.keyID == kid }) {
            return .failure(
                "the store already holds this key (kid \(kid)) as epoch \(existing.epoch) of conversation \(JSONText.quoted(existing.conversation))",
                hints: "a key belongs to exactly one (conversation, epoch); generate a new key for a new epoch (omit --key/--key-file)")
        }
        if automaticEpoch {
            return .failure(
                "conversation \(JSONText.quoted(conversation)) kept getting new epochs while adding (another process is adding keys)",
                hints: "try again, or give --epoch")
        }
        let next = (items.filter { $0.conversation.utf8.elementsEqual(conversation.utf8) }.map(\.epoch).max() ?? 0) + 1
        return .failure(
            "conversation \(JSONText.quoted(conversation)) already has epoch \(epoch)",
            hints: "give another --epoch, or omit it to use the next one (\(next))",
            "or remove the existing one first: pushseal store remove \(location.commandLineOptions) --conversation \(ShellQuoting.quote(conversation)) --epoch \(epoch)")
    }
}

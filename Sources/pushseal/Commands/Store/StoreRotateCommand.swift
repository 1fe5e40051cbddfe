import PushSealCLIKit
import PushSealCore
import PushSealKeyStore

/// `pushseal store rotate`.
enum StoreRotateCommand {
    static let spec = CommandSpec(
        name: "rotate",
        abstract: "Start a new epoch for a conversation; the previous one stays valid for a grace period.",
        discussion: """
            The new key is generated (or given with --key/--key-file, to mirror on a device a \
            rotation made by the provider) at the conversation's highest epoch + 1, and every \
            earlier epoch without a not-after time gets one: now + --grace. All in one \
            transaction.

            APNs stores undelivered notifications for up to 30 days and FCM for up to 28, so the \
            retired key stays usable for --grace seconds before 'store purge' removes it. Prints \
            {"conversation":…,"epoch":…,"kid":…}; never the key ('store get' exports it).
            """,
        options: StoreCommand.locationOptions + [
            CommonOptions.conversation.required(),
            CommonOptions.key, CommonOptions.keyFile,
            .option("grace", valueName: "seconds", abstract: "How long the retired epoch stays valid (31 days).",
                    defaultValue: "2678400"),
            StoreCommand.label,
            CommonOptions.now,
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let location = try StoreCommand.location(arguments)
        let conversation = try StoreCommand.conversation(arguments)!
        let key = try ArgumentDecoding.conversationKey(context)
        let grace = try arguments.integer("grace", in: 0...Int64(Int32.max))!
        let now = try StoreCommand.now(arguments)
        let label = arguments.value("label")

        let store = try StoreCommand.open(location, clock: StoreCommand.clock(now))
        do throws(KeyStoreError) {
            let rotated = try store.rotate(conversation: conversation, gracePeriod: grace, label: label, key: key)
            StoreCommand.writeItemSummary(rotated.item, to: &context)
            return .success
        } catch .duplicateItem {
            guard let key else { throw KeyStoreDiagnostics.error(.duplicateItem, location: location) }
            throw .failure(
                "the store already holds this key (kid \(key.id)); nothing changed",
                hints: "a key belongs to exactly one (conversation, epoch); omit --key/--key-file to rotate to a fresh key")
        } catch {
            throw KeyStoreDiagnostics.error(error, location: location)
        }
    }
}

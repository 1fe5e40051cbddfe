import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore

/// `pushseal store rotate`.
enum StoreRotateCommand {
    static let spec = CommandSpec(
        name: "rotate",
        abstract: "Start a new epoch for a conversation and retire the previous ones now.",
        discussion: """
            The new key is generated (or given with --key/--key-file, to mirror on a device a \
            rotation made by the provider) at the conversation's highest epoch + 1, and every \
            earlier epoch is retired, whatever lifetime it had: its not-after (retire-by) time \
            becomes now, or stays earlier if it already was. All in one transaction.

            A retired key still opens notifications sent before its retire-by time (plus the \
            receiver's --max-skew) until 'store purge' removes it after the grace period; one \
            claiming a later sending time falls back with retired_key, so a member removed by \
            the rotation cannot forge fresh notifications with the old key. Prints \
            {"conversation":…,"epoch":…,"kid":…}; never the key ('store get' exports it).
            """,
        options: StoreCommand.locationOptions + [
            StoreCommand.requiredConversation,
            CommonOptions.key, CommonOptions.keyFile,
            StoreCommand.label,
            CommonOptions.now,
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let location = try StoreCommand.location(context, acceptsURI: true)
        let conversation = try StoreCommand.readNewConversation(arguments)
        let key = try ArgumentDecoding.conversationKey(context)
        let now = try arguments[CommonOptions.now]
        let label = try arguments[StoreCommand.label]

        let store = try StoreCommand.openDirectory(location, clock: StoreCommand.clock(now))
        do throws(KeyDirectoryError) {
            let rotated = try store.rotate(conversation: conversation, label: label, key: key)
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

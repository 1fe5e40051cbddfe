import PushSealCLIKit
import PushSealCore

/// `pushseal store get`: the explicit key export.
enum StoreGetCommand {
    static let spec = CommandSpec(
        name: "get",
        abstract: "Export a key: the conversation's current epoch, a given --epoch, or --kid.",
        discussion: """
            Prints {"conversation":…,"epoch":…,"key":…,"kid":…}. The key is a secret: this is \
            the one store command that prints it, for provisioning devices.
            """,
        options: StoreCommand.locationOptions + [
            CommonOptions.conversation,
            StoreCommand.epoch,
            .option("kid", valueName: "kid", abstract: "Select the key by its key id (base64url) instead."),
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        _ = try StoreCommand.location(arguments)
        _ = try StoreCommand.epoch(arguments)
        let kid = try arguments.value("kid") { (text) throws(ValueError) -> KeyID in
            guard let kid = KeyID(base64URL: text) else { throw ValueError("not a 16-byte base64url key id") }
            return kid
        }
        if kid == nil && !arguments.isPresent("conversation") {
            throw .usage("Give '--conversation <cid>' (with an optional '--epoch <n>') or '--kid <kid>'.")
        }
        if kid != nil && arguments.isPresent("epoch") {
            throw .usage("'--kid <kid>' names one key already; drop '--epoch <n>'.")
        }
        throw StoreCommand.notYetWired("get")
    }
}

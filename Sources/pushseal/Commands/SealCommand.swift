import PushSealCLIKit
import PushSealCore

/// `pushseal seal`: content JSON in, the exact APNs or FCM payload out.
enum SealCommand {
    static let store = OptionSpec.option(
        "store", valueName: "dir", abstract: "Seal with the conversation's current key from this key store directory.")
    static let salt = OptionSpec.option(
        "salt", valueName: "salt",
        abstract: "A fixed 24-byte salt, base64url: deterministic output for tests and vectors ONLY.",
        discussion: "Reusing a salt with the same key reuses the message key and breaks confidentiality.")
    static let padBlock = OptionSpec.option(
        "pad-block", valueName: "n", abstract: "Pad the content to a multiple of n bytes (never past the transport limit).",
        defaultValue: "256")
    static let transport = OptionSpec.option(
        "transport", valueName: "transport", abstract: "The payload to produce.", defaultValue: "apns",
        allowedValues: ["apns", "fcm"])
    static let fcmToken = OptionSpec.option(
        "fcm-token", valueName: "token", abstract: "The device registration token for message.token (FCM only).")
    static let placeholderTitle = OptionSpec.option(
        "placeholder-title", valueName: "text", abstract: "The visible APNs alert title (what Apple sees).")
    static let placeholderBody = OptionSpec.option(
        "placeholder-body", valueName: "text", abstract: "The visible APNs alert body (what Apple sees).",
        defaultValue: "New message")
    static let batch = OptionSpec.flag(
        "batch", abstract: "Read one content per line (JSON lines); write one payload per line.")

    static let spec = CommandSpec(
        name: "seal",
        abstract: "Seal a notification content into an APNs or FCM payload.",
        discussion: """
            Reads the content JSON (cid, mid, ts, body, and optional title, subtitle, sender, \
            thread, category, badge, x), encodes it deterministically, pads it, seals it under \
            the conversation key and prints the exact payload bytes: an APNs JSON body \
            (placeholder alert, mutable-content 1, opaque thread-id) or an FCM HTTP v1 \
            data-only message. A body too long for the transport is shortened at a character \
            boundary and marked trunc; if even an empty body does not fit, a content-free \
            wake-and-fetch payload is sent instead.

            The key comes from --key, --key-file, or --store with --conversation (the \
            conversation's current epoch). With --key or --key-file, --conversation, when given, \
            must equal the content's cid.

            Examples:
              pushseal seal --key-file conversation.key < content.json > payload.json
              pushseal seal --store keys --conversation c1 < content.json
              pushseal seal --key-file c.key --transport fcm --fcm-token "$T" < content.json
            """,
        usage: "(--key <key> | --key-file <file> | --store <dir> --conversation <cid>) [<options>] [<file>]",
        arguments: [CommonOptions.inputFile("content (JSON, or JSON lines with --batch)")],
        options: [
            CommonOptions.key, CommonOptions.keyFile, store, CommonOptions.conversation, CommonOptions.masterKeyFile,
            salt, padBlock, transport, fcmToken, placeholderTitle, placeholderBody, batch,
        ],
        run: run)

    /// Where the sealing key comes from.
    enum KeySource {
        /// `--key` or `--key-file`.
        case key(ConversationKey)
        /// `--store` with `--conversation`: the conversation's current key.
        case store(directory: String, masterKeyFile: String, conversation: String)
    }

    /// The validated command line.
    struct Options {
        var keySource: KeySource
        /// With a direct key: the cid the content must have, when given.
        var expectedConversation: String?
        var salt: [UInt8]?
        var padBlock: Int
        var transport: String
        var fcmToken: String?
        var placeholderTitle: String?
        var placeholderBody: String
        var batch: Bool
        /// nil or "-": standard input.
        var inputPath: String?
    }

    /// Checks and converts every option; usage errors exit 64 before any input is read.
    static func options(_ context: CommandContext) throws(CLIError) -> Options {
        let arguments = context.arguments
        let hasDirectKey = arguments.isPresent("key") || arguments.isPresent("key-file")
        let keySource: KeySource
        if let directory = arguments.value("store") {
            guard !hasDirectKey else { throw .usage("Give either a key (--key, --key-file) or '--store <dir>', not both.") }
            let conversation = try arguments.requiredValue("conversation")
            keySource = .store(
                directory: directory, masterKeyFile: arguments.value("master-key-file") ?? StoreCommand.defaultMasterKeyFile(in: directory),
                conversation: conversation)
        } else if let key = try ArgumentDecoding.conversationKey(context) {
            if arguments.isPresent("master-key-file") { throw .usage("'--master-key-file <file>' is only used with '--store <dir>'.") }
            keySource = .key(key)
        } else {
            throw .usage("Missing key: give '--key <key>', '--key-file <file>', or '--store <dir>' with '--conversation <cid>'.")
        }
        let salt = try arguments.value("salt", ArgumentDecoding.salt(fromBase64URL:))
        let isBatch = arguments.flag("batch")
        if salt != nil && isBatch {
            throw .usage("'--salt <salt>' cannot be used with '--batch': every notification needs a fresh salt.")
        }
        let transport = arguments.value("transport")!
        if arguments.isPresent("fcm-token") && transport != "fcm" {
            throw .usage("'--fcm-token <token>' applies to '--transport fcm' only.")
        }
        return Options(
            keySource: keySource,
            expectedConversation: hasDirectKey ? arguments.value("conversation") : nil,
            salt: salt,
            padBlock: Int(try arguments.integer("pad-block", in: 1...Int64(Envelope.maximumByteCount))!),
            transport: transport,
            fcmToken: arguments.value("fcm-token"),
            placeholderTitle: arguments.value("placeholder-title"),
            placeholderBody: arguments.value("placeholder-body")!,
            batch: isBatch,
            inputPath: arguments.argument("file"))
    }

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        _ = try options(context)
        // Integration: read the content (context.readInput(from: options.inputPath, what: "content")),
        // seal it with PushSealProvider, write the payload bytes, return .success.
        throw .notYetWired("pushseal seal", pendingOn: "the provider module (PushSealProvider)")
    }
}

import PushSealCLIKit
import PushSealCore
import PushSealKeyStore
import PushSealReceiver
import PushSealJSON

/// `pushseal open`: a payload in, the receiver's result out (always JSON).
enum OpenCommand {
    static let store = Option<String?>(
        "store", valueName: "dir", abstract: "Look the key up by its id in this key store directory (a device store).")
    static let conversation = Option<String?>(
        "conversation", valueName: "cid", abstract: "The conversation the key is stored for; the content's cid must match.")
    static let json = Flag("json", abstract: "Accepted for symmetry; the output is always JSON.")
    static let file = CommonOptions.inputFile("payload")

    static let spec = CommandSpec(
        name: "open",
        abstract: "Open a payload as a receiver does: decrypted content, or fallback with a reason.",
        discussion: """
            Reads an APNs payload or FCM message/data map and runs the receiver's checks in \
            order. Prints one JSON object:
              {"outcome":"decrypted"|"fallback","reason":null|"<reason code>",
               "duplicate":false,"conflict":false,"requiresFetch":false,"truncated":false,
               "content":{…}}
            where content is the decrypted content, or the fallback text on failure. Reason \
            codes: not_sealed, malformed_envelope, unsupported_version, unknown_key, \
            store_locked, authentication_failed, malformed_content, conversation_mismatch, stale, \
            retired_key (with --store: the key was retired by a rotation before the \
            notification's sending time plus --max-skew).

            The key comes from --key (or --key-file) with --conversation, the conversation the \
            key is stored for, or from --store, a key store directory (master key: \
            --master-key-file, default <dir>.master.key beside it). With --store the key is looked up by \
            the envelope's key id: an id the store does not hold is unknown_key; a held key that \
            cannot be read (missing or wrong master key, unreadable store) is store_locked. A \
            decrypted notification's (cid, mid) is recorded in the store's duplicate log, and \
            opening it again prints "duplicate":true ("conflict":true as well when the same \
            (cid, mid) comes with another envelope); entries older than --max-age + --max-skew \
            are pruned in the same transaction.

            Exit status: 0 decrypted, 3 fell back (the result is still printed).

            Example:
              pushseal open --store device --now 1700000000 < payload.json
            """,
        usage: "(--key <key> | --key-file <file>) --conversation <cid> [<options>] [<file>]\n"
            + "pushseal open --store <dir> [<options>] [<file>]",
        arguments: [file],
        options: [
            CommonOptions.key, CommonOptions.keyFile, conversation, store, CommonOptions.masterKeyFile,
            CommonOptions.now, CommonOptions.maxAge, CommonOptions.maxSkew, json,
        ],
        run: run)

    /// Where the receiver's key comes from.
    enum KeySource {
        /// `--key`/`--key-file` with `--conversation`: a single known key.
        case key(ConversationKey, conversation: String)
        /// `--store`: lookup by key id, duplicate log.
        case store(directory: String, masterKeyFile: String)
    }

    /// The key named by `--key`/`--key-file` with `--conversation`, or by `--store` (with
    /// `--master-key-file`); usage errors exit 64 before any input is read.
    static func keySource(_ context: CommandContext) throws(CLIError) -> KeySource {
        let arguments = context.arguments
        if let directory = try arguments[Self.store] {
            try StoreCommand.refuseConnectionURI(directory, option: Self.store)
            if arguments.isPresent(CommonOptions.key) || arguments.isPresent(CommonOptions.keyFile) {
                throw .usage("Give either a key (--key, --key-file) or '--store <dir>', not both.")
            }
            if arguments.isPresent(Self.conversation) {
                throw .usage("'--conversation <cid>' goes with '--key'; with '--store' the key's stored conversation is used.")
            }
            return .store(
                directory: directory,
                masterKeyFile: try arguments[CommonOptions.masterKeyFile]?.path ?? MasterKeyPlacement.resolve(for: directory))
        }
        guard let key = try ArgumentDecoding.conversationKey(context) else {
            throw .usage("Missing key: give '--key <key>' (or '--key-file <file>') with '--conversation <cid>', or '--store <dir>'.")
        }
        if arguments.isPresent(CommonOptions.masterKeyFile) { throw .usage("'--master-key-file <file>' is only used with '--store <dir>'.") }
        guard let conversation = try arguments[Self.conversation] else { throw .usage(.missingOption(Self.conversation.spec)) }
        return .key(key, conversation: conversation)
    }

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let source = try keySource(context)
        let now = try arguments[CommonOptions.now]
        let maxAge = try arguments[CommonOptions.maxAge]
        let maxSkew = try arguments[CommonOptions.maxSkew]
        var clock: SecondsClock = systemClock
        if let now { clock = { now } }
        let keySource: any ReceiverKeySource
        var watch: DeliveryLogWatch?
        switch source {
        case let .key(key, conversation):
            keySource = SingleConversationKey(key: key, conversation: conversation)
        case let .store(directory, masterKeyFile):
            // The store is touched only through the receiver's key source: one read transaction
            // for the lookup, one mark in the duplicate log's file (pruned with this run's
            // freshness window), nothing else. A cold `open --store` must stay fast.
            let (window, overflow) = maxAge.addingReportingOverflow(maxSkew)
            let source = DeliveryLogWatch(KeyStoreKeySource(
                directory: directory, masterKey: .keyFile(path: masterKeyFile),
                duplicateLogRetention: overflow ? Int64.max : window, clock: clock))
            watch = source
            keySource = source
        }
        let payload = try context.readInput(from: try arguments[Self.file], what: "payload")
        let receiver = Receiver(keySource: keySource, configuration: ReceiverConfiguration(
            maximumAge: maxAge, maximumFutureSkew: maxSkew, clock: clock))
        let result = receiver.open(.json(payload))
        if let why = watch?.unavailableReason {
            context.warn("decrypted, but the duplicate log could not be updated (a repeat would not be flagged): \(why)")
        }
        var writer = JSONWriter()
        writer.append(ReceivedNotificationJSON.value(of: result))
        context.write(writer.text + "\n")
        return result.outcome == ReceivedNotification.Outcome.decrypted ? .success : .fallback
    }
}

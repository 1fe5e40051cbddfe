import PushSealCLIKit
import PushSealCore

/// Options shared by several commands, declared once so their names, value names, help and
/// types read the same everywhere.
enum CommonOptions {
    /// `--key <key>`: a conversation key on the command line.
    static let key = Option<ConversationKey?>(
        "key", valueName: "key", abstract: "The conversation key K: 32 bytes, base64url without padding.",
        discussion: "Visible to other local users in the process list; prefer --key-file on shared machines.",
        secret: true, parse: ArgumentDecoding.conversationKey(fromBase64URL:))

    /// `--key-file <file>`: a conversation key from a file.
    static let keyFile = Option<String?>(
        "key-file", valueName: "file",
        abstract: "Read K from a file: the base64url key, or the JSON printed by 'pushseal keygen'.")

    /// `--conversation <cid>`.
    static let conversation = Option<String?>(
        "conversation", valueName: "cid", abstract: "The conversation id (the content's cid).")

    /// `--master-key-file <file>`: the key store's master key.
    static let masterKeyFile = Option<FilePath?>(
        "master-key-file", valueName: "file",
        abstract: "The store's master key file (0600). Default: <dir>.master.key, beside the directory.")

    /// `--json`: machine-readable output.
    static let json = Flag("json", abstract: "Print one JSON object instead of text.")

    /// `--now <unix-time>`: the clock a receiver uses.
    static let now = Option<Int64?>(
        "now", valueName: "unix-time", abstract: "The current time in seconds since 1970 (default: the system clock).",
        in: 0...NotificationContent.maximumTimestamp)

    /// `--max-age <seconds>`: the receiver's freshness window.
    static let maxAge = Option<Int64>(
        "max-age", valueName: "seconds", abstract: "Oldest accepted notification, in seconds (31 days).",
        default: 2_678_400, in: 0...Int64.max)

    /// `--max-skew <seconds>`: how far in the future a notification may be dated.
    static let maxSkew = Option<Int64>(
        "max-skew", valueName: "seconds", abstract: "Largest accepted clock skew into the future, in seconds.",
        default: 600, in: 0...Int64.max)

    /// `[<file>]`: an input file instead of standard input.
    static func inputFile(_ what: String) -> Argument<String?> {
        Argument("file", abstract: "The \(what) to read; standard input when absent or '-'.")
    }
}

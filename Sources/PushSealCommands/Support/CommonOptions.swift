import PushSealCLIKit

/// Options shared by several commands, declared once so their names, value names and help
/// read the same everywhere.
enum CommonOptions {
    /// `--key <key>`: a conversation key on the command line.
    static let key = OptionSpec.option(
        "key", valueName: "key", abstract: "The conversation key K: 32 bytes, base64url without padding.",
        discussion: "Visible to other local users in the process list; prefer --key-file on shared machines.",
        secret: true)

    /// `--key-file <file>`: a conversation key from a file.
    static let keyFile = OptionSpec.option(
        "key-file", valueName: "file",
        abstract: "Read K from a file: the base64url key, or the JSON printed by 'pushseal keygen'.")

    /// `--conversation <cid>`.
    static let conversation = OptionSpec.option(
        "conversation", valueName: "cid", abstract: "The conversation id (the content's cid).")

    /// `--master-key-file <file>`: the key store's master key.
    static let masterKeyFile = OptionSpec.option(
        "master-key-file", valueName: "file",
        abstract: "The store's master key file (0600). Default: <dir>.master.key, beside the directory.")

    /// `--json`: machine-readable output.
    static let json = OptionSpec.flag("json", abstract: "Print one JSON object instead of text.")

    /// `--now <unix-time>`: the clock a receiver uses.
    static let now = OptionSpec.option(
        "now", valueName: "unix-time", abstract: "The current time in seconds since 1970 (default: the system clock).")

    /// `--max-age <seconds>`: the receiver's freshness window.
    static let maxAge = OptionSpec.option(
        "max-age", valueName: "seconds", abstract: "Oldest accepted notification, in seconds (31 days).",
        defaultValue: "2678400")

    /// `--max-skew <seconds>`: how far in the future a notification may be dated.
    static let maxSkew = OptionSpec.option(
        "max-skew", valueName: "seconds", abstract: "Largest accepted clock skew into the future, in seconds.",
        defaultValue: "600")

    /// `[<file>]`: an input file instead of standard input.
    static func inputFile(_ what: String) -> ArgumentSpec {
        .optional("file", abstract: "The \(what) to read; standard input when absent or '-'.")
    }
}

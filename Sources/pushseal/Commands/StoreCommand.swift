import PushSealCLIKit
import PushSealCore

/// `pushseal store`: the key store directory (provider key directory or device store).
enum StoreCommand {
    static let spec = CommandSpec(
        name: "store",
        abstract: "Manage a key store directory: init, add, get, list, rotate, remove, purge.",
        discussion: """
            A key store holds conversation keys by (conversation, epoch), indexed by key id, \
            each sealed at rest under the store's master key. One format serves the provider's \
            key directory and the device's shared store (which also keeps the duplicate log).

            Every subcommand takes --dir <dir> and --master-key-file <file> (default: \
            <dir>/master.key, created 0600 by 'store init'). Keys are printed only by \
            'store get', which exists to export them.
            """,
        subcommands: [
            StoreInitCommand.spec, StoreAddCommand.spec, StoreGetCommand.spec, StoreListCommand.spec,
            StoreRotateCommand.spec, StoreRemoveCommand.spec, StorePurgeCommand.spec,
        ])

    /// `--dir <dir>`, required by every store subcommand.
    static let directory = OptionSpec.option(
        "dir", valueName: "dir", abstract: "The key store directory.", required: true)

    /// `--epoch <n>`.
    static let epoch = OptionSpec.option("epoch", valueName: "n", abstract: "A key epoch of the conversation (1, 2, …).")

    /// The options every store subcommand starts with.
    static let locationOptions = [directory, CommonOptions.masterKeyFile]

    /// `<dir>/master.key`.
    static func defaultMasterKeyFile(in directory: String) -> String {
        directory.hasSuffix("/") ? directory + "master.key" : directory + "/master.key"
    }

    /// Where the store is.
    struct Location {
        var directory: String
        var masterKeyFile: String
    }

    /// `--dir` and `--master-key-file` (defaulted).
    static func location(_ arguments: ParsedArguments) throws(CLIError) -> Location {
        let directory = try arguments.requiredValue("dir")
        guard !directory.isEmpty else { throw arguments.invalidValue("dir", reason: "empty path") }
        return Location(directory: directory, masterKeyFile: arguments.value("master-key-file") ?? defaultMasterKeyFile(in: directory))
    }

    /// `--epoch` as a positive integer.
    static func epoch(_ arguments: ParsedArguments) throws(CLIError) -> Int64? {
        try arguments.integer("epoch", in: 1...Int64(Int32.max))
    }

    /// The pending-integration error shared by the store subcommands.
    static func notYetWired(_ subcommand: String) -> CLIError {
        .notYetWired("pushseal store \(subcommand)", pendingOn: "the key store module (PushSealKeyStore)")
    }
}

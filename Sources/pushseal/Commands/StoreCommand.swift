import PushSealCLIKit
import PushSealCore
import PushSealKeyStore
import PushSealJSON

/// `pushseal store`: the key store directory (provider key directory or device store).
enum StoreCommand {
    static let spec = CommandSpec(
        name: "store",
        abstract: "Manage a key store directory: init, add, get, list, rotate, remove, purge, rotate-master, provider-key.",
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
            StoreRotateCommand.spec, StoreRemoveCommand.spec, StorePurgeCommand.spec, StoreRotateMasterCommand.spec, StoreProviderKeyCommand.spec,
        ])

    /// `--dir <dir>`, required by every store subcommand.
    static let directory = OptionSpec.option(
        "dir", valueName: "dir", abstract: "The key store directory.", required: true)

    /// `--epoch <n>`.
    static let epoch = OptionSpec.option("epoch", valueName: "n", abstract: "A key epoch of the conversation (1, 2, …).")

    /// `--kid <kid>`: one key by its id.
    static let kid = OptionSpec.option("kid", valueName: "kid", abstract: "Select the key by its key id (base64url) instead.")

    /// `--label <text>`.
    static let label = OptionSpec.option(
        "label", valueName: "text", abstract: "A label for the key (for people; not secret, not used in crypto).")

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
        /// Whether `--master-key-file` was given (hints repeat it only then).
        var masterKeyFileGiven = false

        /// The database file, `<dir>/pushseal-keys.sqlite3`.
        var databaseFile: String {
            directory.hasSuffix("/") ? directory + KeyStore.fileName : directory + "/" + KeyStore.fileName
        }

        /// `--dir D` plus `--master-key-file F` when it was given, shell-quoted, for hints.
        var commandLineOptions: String {
            var text = "--dir \(ShellQuoting.quote(directory))"
            if masterKeyFileGiven { text += " --master-key-file \(ShellQuoting.quote(masterKeyFile))" }
            return text
        }
    }

    /// `--dir` and `--master-key-file` (defaulted).
    static func location(_ arguments: ParsedArguments) throws(CLIError) -> Location {
        let directory = try arguments.requiredValue("dir")
        guard !directory.isEmpty else { throw arguments.invalidValue("dir", reason: "empty path") }
        try refuseConnectionURI(directory, option: "dir")
        let given = arguments.value("master-key-file")
        if given?.isEmpty == true { throw arguments.invalidValue("master-key-file", reason: "empty path") }
        return Location(
            directory: directory, masterKeyFile: given ?? defaultMasterKeyFile(in: directory), masterKeyFileGiven: given != nil)
    }

    /// A PostgreSQL connection URI where a store directory is expected: `pushseal` (fully static,
    /// no libpq) does not open the PostgreSQL key directory, and must never treat the URI as a
    /// directory path (it would create `./postgresql:/…`).
    static func refuseConnectionURI(_ value: String, option: String) throws(CLIError) {
        guard value.hasPrefix("postgresql://") || value.hasPrefix("postgres://") else { return }
        throw .failure(Diagnostic(
            "--\(option) is a PostgreSQL connection URI; this pushseal opens SQLite key store directories only",
            hints: [
                "use the PostgreSQL key directory from Swift: PostgreSQLKeyDirectory(uri:masterKey:) in the PushSealKeyDirectoryPostgreSQL product (Docs/PROVIDER.md §6.1)",
            ]))
    }

    /// `--epoch` as a positive integer.
    static func epoch(_ arguments: ParsedArguments) throws(CLIError) -> Int64? {
        try arguments.integer("epoch", in: 1...Int64(Int32.max))
    }

    /// `--kid` as a key id.
    static func keyID(_ arguments: ParsedArguments) throws(CLIError) -> KeyID? {
        try arguments.value("kid") { (text) throws(ValueError) -> KeyID in
            guard let kid = KeyID(base64URL: text) else { throw ValueError("not a 16-byte base64url key id") }
            return kid
        }
    }

    /// `--conversation`, checked against the store's limit (1 to 256 UTF-8 bytes), or nil.
    static func conversation(_ arguments: ParsedArguments) throws(CLIError) -> String? {
        guard let conversation = arguments.value("conversation") else { return nil }
        let count = conversation.utf8.count
        guard count >= 1, count <= KeyStore.maximumConversationByteCount else {
            throw arguments.invalidValue(
                "conversation", reason: "a conversation id is 1 to \(KeyStore.maximumConversationByteCount) UTF-8 bytes, not \(count)")
        }
        return conversation
    }

    /// `--now` (nil: the system clock).
    static func now(_ arguments: ParsedArguments) throws(CLIError) -> Int64? {
        try arguments.integer("now", in: 0...NotificationContent.maximumTimestamp)
    }

    /// The clock for `--now`: that fixed time, or the system clock.
    static func clock(_ now: Int64?) -> SecondsClock {
        guard let now else { return systemClock }
        return { now }
    }

    /// Opens the existing store at `location` (never creates anything); every failure becomes a
    /// diagnostic with hints.
    static func open(_ location: Location, clock: @escaping SecondsClock = systemClock) throws(CLIError) -> KeyStore {
        try run(location) { () throws(KeyStoreError) in
            try KeyStore(directory: location.directory, masterKey: .keyFile(path: location.masterKeyFile), clock: clock)
        }
    }

    /// Runs `body`, turning a ``KeyStoreError`` into the tool's diagnostic for `location`.
    static func run<R>(_ location: Location, _ body: () throws(KeyStoreError) -> R) throws(CLIError) -> R {
        do throws(KeyStoreError) {
            return try body()
        } catch {
            throw KeyStoreDiagnostics.error(error, location: location)
        }
    }

    /// `{"conversation":…,"epoch":…,"kid":…}` of an item, then a newline (add and rotate).
    static func writeItemSummary(_ item: KeyItem, to context: inout CommandContext) {
        var writer = JSONWriter(capacity: 96)
        writer.appendRaw("{\"conversation\":")
        writer.appendString(item.conversation)
        writer.appendRaw(",\"epoch\":")
        writer.appendInteger(item.epoch)
        writer.appendRaw(",\"kid\":")
        writer.appendString(item.keyID.base64URL)
        writer.appendRaw("}\n")
        context.write(bytes: writer.bytes)
    }
}

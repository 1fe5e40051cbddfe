import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealJSON

/// `pushseal store`: the key store directory (provider key directory or device store).
enum StoreCommand {
    static let spec = CommandSpec(
        name: "store",
        abstract: "Manage a key store directory: init, add, get, list, rotate, remove, purge, rotate-master, provider-key, device.",
        discussion: """
            A key store holds conversation keys by (conversation, epoch), indexed by key id, \
            each sealed at rest under the store's master key. One format serves the provider's \
            key directory and the device's shared store (which also keeps the duplicate log).

            Every subcommand takes --dir <dir> and --master-key-file <file> (default: \
            <dir>.master.key beside the directory, not inside it, created 0600 by 'store init'; \
            a key file at the earlier default <dir>/master.key is moved there, with a note). \
            Keys are printed only by \
            'store get', which exists to export them.

            For init, add, get, list, rotate, remove, purge, provider-key and device, --dir may instead be a \
            PostgreSQL connection URI (postgresql://… or postgres://…, with --master-key-file): \
            the provider key directory shared by many backend nodes. pushseal then runs \
            pushseal-postgres, the companion next to it that links libpq, with the same \
            arguments. The URI's password is never printed.
            """,
        subcommands: [
            StoreInitCommand.spec, StoreAddCommand.spec, StoreGetCommand.spec, StoreListCommand.spec,
            StoreRotateCommand.spec, StoreRemoveCommand.spec, StorePurgeCommand.spec, StoreRotateMasterCommand.spec, StoreProviderKeyCommand.spec,
            StoreDeviceCommand.spec,
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


    /// Where the store is.
    struct Location {
        /// The store directory, or a PostgreSQL connection URI (with its password: only ever
        /// handed to the key directory, never printed; see ``displayName``).
        var directory: String
        var masterKeyFile: String
        /// Whether `--master-key-file` was given (hints repeat it only then).
        var masterKeyFileGiven = false
        /// The option that named the store (`dir`, or `store` for `seal`).
        var option = "dir"

        /// Whether `directory` is a PostgreSQL connection URI.
        var isConnectionURI: Bool { PostgreSQLCompanion.isConnectionURI(directory) }

        /// The directory, or the URI with its password redacted, for messages.
        var displayName: String { PostgreSQLCompanion.displayName(directory) }

        /// The database file, `<dir>/pushseal-keys.sqlite3` (the redacted URI on PostgreSQL).
        var databaseFile: String {
            if isConnectionURI { return displayName }
            return directory.hasSuffix("/") ? directory + KeyStore.fileName : directory + "/" + KeyStore.fileName
        }

        /// `--dir D` plus `--master-key-file F` when it was given, shell-quoted, for hints (a
        /// URI's password redacted).
        var commandLineOptions: String {
            var text = "--dir \(ShellQuoting.quote(displayName))"
            if masterKeyFileGiven { text += " --master-key-file \(ShellQuoting.quote(masterKeyFile))" }
            return text
        }
    }

    /// `--dir` and `--master-key-file` (defaulted). With `acceptsURI`, `--dir` may be a
    /// PostgreSQL connection URI (the provider key directory commands); otherwise a URI is a
    /// usage error.
    static func location(_ arguments: ParsedArguments, acceptsURI: Bool = false) throws(CLIError) -> Location {
        try location(try arguments.requiredValue("dir"), option: "dir", arguments, acceptsURI: acceptsURI)
    }

    /// The store named by `value` (the value of `--<option>`) and `--master-key-file`. A
    /// connection URI needs `acceptsURI` and `--master-key-file`; in `pushseal` itself it runs
    /// the PostgreSQL companion in place of this process (``PostgreSQLCompanion``).
    static func location(_ value: String, option: String, _ arguments: ParsedArguments, acceptsURI: Bool) throws(CLIError) -> Location {
        guard !value.isEmpty else { throw arguments.invalidValue(option, reason: "empty path") }
        let given = arguments.value("master-key-file")
        if given?.isEmpty == true { throw arguments.invalidValue("master-key-file", reason: "empty path") }
        if PostgreSQLCompanion.isConnectionURI(value) {
            guard acceptsURI else { throw uriRefusal(option: option) }
            guard let given else {
                throw .usage("'--\(option) <uri>' needs '--master-key-file <file>': a PostgreSQL key directory has no directory to keep its master key in.")
            }
            if PostgreSQLCompanion.backend == nil { try PostgreSQLCompanion.replaceProcess() }
            return Location(directory: value, masterKeyFile: given, masterKeyFileGiven: true, option: option)
        }
        return Location(
            directory: value, masterKeyFile: given ?? MasterKeyPlacement.resolve(for: value), masterKeyFileGiven: given != nil, option: option)
    }

    /// A PostgreSQL connection URI given to a command that works on a SQLite store directory only
    /// (the device's commands, provider keys, bundles): a usage error, never a
    /// directory path (it would create `./postgresql:/…`).
    static func refuseConnectionURI(_ value: String, option: String) throws(CLIError) {
        guard PostgreSQLCompanion.isConnectionURI(value) else { return }
        throw uriRefusal(option: option)
    }

    /// The usage error of ``refuseConnectionURI(_:option:)``.
    private static func uriRefusal(option: String) -> CLIError {
        .usage(
            "'--\(option)' is a PostgreSQL connection URI, but this command works on a SQLite key store directory only; "
                + "a PostgreSQL key directory takes 'store init|add|get|list|rotate|remove|purge|rotate-master|provider-key|device', 'bundle seal' and 'seal --store'.")
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

    /// `--conversation` of a command that files a new key (`store add`, `store rotate`): also
    /// a valid content identifier (``NotificationContent/checkIdentifier(_:field:)``, SPEC §5.1),
    /// since the receiver refuses any other cid and the key could never be used. Commands that
    /// read or remove keys accept any stored id, so that such a key can still be removed.
    static func newConversation(_ arguments: ParsedArguments) throws(CLIError) -> String? {
        guard let conversation = try conversation(arguments) else { return nil }
        do throws(ContentError) {
            try NotificationContent.checkIdentifier(conversation, field: "cid")
        } catch {
            let option = arguments.command.option(named: "conversation")
            let rule = if case let .outOfRange(_, detail) = error { detail } else { "\(error)" }
            throw .usage(
                "The value \(JSONText.quoted(conversation)) is invalid for '\(option?.synopsis ?? "--conversation <cid>")': "
                    + "a conversation id is a content cid, which \(rule) (SPEC §5.1): "
                    + "the receiver refuses any other, so the key could never be used",
                help: option.map { "\($0.synopsis)  \($0.abstract)" })
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
        // Never a URI as a path (it would create `./postgresql:/…`).
        if location.isConnectionURI { throw uriRefusal(option: location.option) }
        return try run(location) { () throws(KeyDirectoryError) in
            try KeyStore(directory: location.directory, masterKey: .keyFile(path: location.masterKeyFile), clock: clock)
        }
    }

    /// Opens the existing provider key directory at `location`: the SQLite store, or with a
    /// connection URI the PostgreSQL key directory (in `pushseal-postgres`, the only process
    /// that gets this far with a URI).
    static func openDirectory(_ location: Location, clock: @escaping SecondsClock = systemClock) throws(CLIError) -> any KeyDirectory {
        guard location.isConnectionURI else { return try open(location, clock: clock) }
        return try openPostgreSQL(location, create: false, clock: clock).directory
    }

    /// The PostgreSQL key directory at `location` (with `create`, created when the database has
    /// none) and whether this call created it.
    static func openPostgreSQL(_ location: Location, create: Bool, clock: @escaping SecondsClock = systemClock) throws(CLIError)
        -> (directory: any KeyDirectory, created: Bool)
    {
        guard let backend = PostgreSQLCompanion.backend else { try PostgreSQLCompanion.replaceProcess() }
        return try run(location) { () throws(KeyDirectoryError) in try backend.open(location.directory, location.masterKeyFile, create, clock) }
    }

    /// Runs `body`, turning a `KeyDirectoryError` into the tool's diagnostic for `location`.
    static func run<R>(_ location: Location, _ body: () throws(KeyDirectoryError) -> R) throws(CLIError) -> R {
        do throws(KeyDirectoryError) {
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

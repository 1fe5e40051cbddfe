import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealKeyDirectorySQLite
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
            pushseal-full, the companion next to it that links libpq, with the same \
            arguments. The URI's password is never printed.
            """,
        subcommands: [
            StoreInitCommand.spec, StoreAddCommand.spec, StoreGetCommand.spec, StoreListCommand.spec,
            StoreRotateCommand.spec, StoreRemoveCommand.spec, StorePurgeCommand.spec, StoreRotateMasterCommand.spec, StoreProviderKeyCommand.spec,
            StoreDeviceCommand.spec,
        ])

    /// `--dir <dir>`, required by every store subcommand.
    static let directory = Option<FilePath>("dir", valueName: "dir", abstract: "The key store directory.")

    /// `--epoch <n>` with this help.
    static func epoch(abstract: String) -> Option<Int64?> {
        Option("epoch", valueName: "n", abstract: abstract, in: 1...Int64(Int32.max))
    }

    /// `--epoch <n>`.
    static let epoch = epoch(abstract: "A key epoch of the conversation (1, 2, …).")

    /// `--kid <kid>` with this help: one key by its id.
    static func kid(abstract: String) -> Option<KeyID?> {
        Option("kid", valueName: "kid", abstract: abstract, parse: ArgumentDecoding.keyID("key id"))
    }

    /// `--kid <kid>`: one key by its id.
    static let kid = kid(abstract: "Select the key by its key id (base64url) instead.")

    /// `--conversation <cid>` of the store commands, with this help: a conversation id as the
    /// store keeps it, 1 to 256 UTF-8 bytes.
    static func conversation(abstract: String) -> Option<String?> {
        Option("conversation", valueName: "cid", abstract: abstract) { (text) throws(ValueError) -> String in
            let count = text.utf8.count
            guard count >= 1, count <= DeviceKeyStore.maximumConversationByteCount else {
                throw ValueError("a conversation id is 1 to \(DeviceKeyStore.maximumConversationByteCount) UTF-8 bytes, not \(count)")
            }
            return text
        }
    }

    /// `--conversation <cid>` of the store commands (``conversation(abstract:)``).
    static let conversation = conversation(abstract: CommonOptions.conversation.spec.abstract)

    /// `--conversation <cid>` of the store commands, required (``conversation``); a command that
    /// files a new key reads it with ``readNewConversation(_:)``.
    static let requiredConversation = conversation.required()

    /// `--label <text>`.
    static let label = Option<String?>(
        "label", valueName: "text", abstract: "A label for the key (for people; not secret, not used in crypto).")

    /// The options every store subcommand starts with.
    static let locationOptions: [any CommandOption] = [directory, CommonOptions.masterKeyFile]

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
        /// The PostgreSQL key directory, when this executable links it (the companion).
        var postgreSQL: PostgreSQLBackend?

        /// Whether `directory` is a PostgreSQL connection URI.
        var isConnectionURI: Bool { Companion.isConnectionURI(directory) }

        /// The directory as it is, or the URI with its password redacted (`***`; without the
        /// backend, which only `pushseal` lacks, the URI is not shown at all), for messages.
        var displayName: String {
            guard isConnectionURI else { return directory }
            return postgreSQL?.redacted(directory) ?? "<connection URI>"
        }

        /// The database file, `<dir>/pushseal-keys.sqlite3` (the redacted URI on PostgreSQL).
        var databaseFile: String {
            if isConnectionURI { return displayName }
            return directory.hasSuffix("/") ? directory + DeviceKeyStore.fileName : directory + "/" + DeviceKeyStore.fileName
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
    static func location(_ context: CommandContext, acceptsURI: Bool = false) throws(CLIError) -> Location {
        try location(try context.arguments[directory], option: directory, context, acceptsURI: acceptsURI)
    }

    /// The store named by `value` (the value of `option`) and `--master-key-file`. A
    /// connection URI needs `acceptsURI` and `--master-key-file`, and is opened with the
    /// context's PostgreSQL backend (the companion's; `pushseal` runs the companion for a URI
    /// before parsing, ``Companion``).
    static func location(_ value: FilePath, option: some CommandOption, _ context: CommandContext, acceptsURI: Bool) throws(CLIError) -> Location {
        let arguments = context.arguments
        let option = option.spec.name
        let given = try arguments[CommonOptions.masterKeyFile]?.path
        if Companion.isConnectionURI(value.path) {
            guard acceptsURI else { throw uriRefusal(option: option) }
            guard let given else {
                throw .usage("'--\(option) <uri>' needs '--master-key-file <file>': a PostgreSQL key directory has no directory to keep its master key in.")
            }
            return Location(
                directory: value.path, masterKeyFile: given, masterKeyFileGiven: true, option: option, postgreSQL: context.backends.postgreSQL)
        }
        return Location(
            directory: value.path, masterKeyFile: given ?? MasterKeyPlacement.resolve(for: value.path), masterKeyFileGiven: given != nil,
            option: option)
    }

    /// A PostgreSQL connection URI given to a command that works on a SQLite store directory only
    /// (the device's commands, provider keys, bundles): a usage error, never a
    /// directory path (it would create `./postgresql:/…`).
    static func refuseConnectionURI(_ value: String, option: some CommandOption) throws(CLIError) {
        guard Companion.isConnectionURI(value) else { return }
        throw uriRefusal(option: option.spec.name)
    }

    /// The usage error of ``refuseConnectionURI(_:option:)``.
    private static func uriRefusal(option: String) -> CLIError {
        .usage(
            "'--\(option)' is a PostgreSQL connection URI, but this command works on a SQLite key store directory only; "
                + "a PostgreSQL key directory takes 'store init|add|get|list|rotate|remove|purge|rotate-master|provider-key|device', 'bundle seal' and 'seal --store'.")
    }

    /// ``requiredConversation`` of a command that files a new key (`store add`, `store rotate`): also a valid content identifier (``NotificationContent/checkIdentifier(_:field:)``,
    /// SPEC §5.1), since the receiver refuses any other cid and the key could never be used.
    /// Commands that read or remove keys accept any stored id, so that such a key can still be removed.
    static func readNewConversation(_ arguments: ParsedArguments) throws(CLIError) -> String {
        let option = requiredConversation
        let conversation = try arguments[option]
        do throws(ContentError) {
            try NotificationContent.checkIdentifier(conversation, field: "cid")
        } catch {
            let rule = if case let .outOfRange(_, detail) = error { detail } else { "\(error)" }
            throw .usage(
                "The value \(JSONText.quoted(conversation)) is invalid for '\(option.spec.synopsis)': "
                    + "a conversation id is a content cid, which \(rule) (SPEC §5.1): "
                    + "the receiver refuses any other, so the key could never be used",
                help: "\(option.spec.synopsis)  \(option.spec.abstract)")
        }
        return conversation
    }

    /// The clock for `--now`: that fixed time, or the system clock.
    static func clock(_ now: Int64?) -> SecondsClock {
        guard let now else { return systemClock }
        return { now }
    }

    /// Opens the existing store at `location` (never creates anything); every failure becomes a
    /// diagnostic with hints.
    static func open(_ location: Location, clock: @escaping SecondsClock = systemClock) throws(CLIError) -> DeviceKeyStore {
        // Never a URI as a path (it would create `./postgresql:/…`).
        if location.isConnectionURI { throw uriRefusal(option: location.option) }
        return try run(location) { () throws(KeyDirectoryError) in
            try DeviceKeyStore(directory: location.directory, masterKey: .keyFile(path: location.masterKeyFile), clock: clock)
        }
    }

    /// Opens the existing provider key directory at `location`: the SQLite store, or with a
    /// connection URI the PostgreSQL key directory (in the companion, the only executable that
    /// links it).
    static func openDirectory(_ location: Location, clock: @escaping SecondsClock = systemClock) throws(CLIError) -> any KeyDirectory {
        guard location.isConnectionURI else { return SQLiteKeyDirectory(store: try open(location, clock: clock)) }
        return try openPostgreSQL(location, create: false, clock: clock).directory
    }

    /// The PostgreSQL key directory at `location` (with `create`, created when the database has
    /// none) and whether this call created it.
    static func openPostgreSQL(_ location: Location, create: Bool, clock: @escaping SecondsClock = systemClock) throws(CLIError)
        -> (directory: any KeyDirectory, created: Bool)
    {
        guard let backend = location.postgreSQL else { throw PostgreSQLBackend.missing }
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

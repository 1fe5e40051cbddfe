import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealJSON

/// `pushseal store init`.
enum StoreInitCommand {
    static let spec = CommandSpec(
        name: "init",
        abstract: "Create a key store: the directory (0700), its database and master key (0600).",
        discussion: """
            Prints {"created":…,"dir":…,"file":…,"masterKeyFile":…}: whether a new store was \
            created, the store directory, its database file and its master key file.

            --dir may be a PostgreSQL connection URI (postgresql://…; with --master-key-file): \
            init then creates the provider key directory's schema in that database ("file" is \
            null, the URI's password is never printed). pushseal runs pushseal-full, next \
            to it, for a URI.

            An existing master key file is kept, never overwritten (a new store then uses that \
            key). Running init on an existing store checks it (format version, master key) and \
            changes nothing; it says so and prints "created":false.

            Keep the master key file safe: without it the store's keys cannot be read. For a \
            provider, keep it outside the store directory (--master-key-file /etc/…), so a copy \
            of the data directory alone is useless.
            """,
        options: StoreCommand.locationOptions,
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let location = try StoreCommand.location(context, acceptsURI: true)
        if location.isConnectionURI { return try initPostgreSQL(&context, location: location) }
        // Only for the hint on a failure: whether this init created the store is the store's answer.
        let storeExisted = if case let .file(size, _) = FileStatus(location.databaseFile) { size > 0 } else { false }
        let keyFileExisted = FileStatus(location.masterKeyFile) != .missing
        let store: DeviceKeyStore
        do throws(KeyDirectoryError) {
            store = try DeviceKeyStore(
                directory: location.directory,
                masterKey: .keyFile(path: location.masterKeyFile, createIfMissing: true),
                create: true)
        } catch {
            var diagnostic = Diagnostic(error.description, hints: KeyStoreDiagnostics.hints(for: error, location: location))
            if storeExisted, case .locked = error {
                diagnostic.hints.append("this store exists already: init never replaces a store's master key")
            }
            throw .failure(diagnostic)
        }

        if !store.createdStore {
            context.note("a key store already exists in \(location.directory); checked it, nothing changed")
        } else if keyFileExisted {
            context.note("created a key store in \(location.directory) under the existing master key file \(location.masterKeyFile)")
        }
        if case let .directory(permissions) = FileStatus(location.directory), permissions & 0o077 != 0 {
            context.warn(
                "\(location.directory) is accessible by group or others (mode \(FileStatus.octal(permissions))); "
                    + "a key store directory should be private: chmod 700 \(ShellQuoting.quote(location.directory))")
        }

        writeSummary(created: store.createdStore, location: location, file: store.path, to: &context)
        return .success
    }

    /// `store init --dir <uri>`: creates the schema of a PostgreSQL key directory (and the master
    /// key file when missing), or checks an existing one.
    private static func initPostgreSQL(_ context: inout CommandContext, location: StoreCommand.Location) throws(CLIError) -> ExitCode {
        let keyFileExisted = FileStatus(location.masterKeyFile) != .missing
        let created = try StoreCommand.openPostgreSQL(location, create: true).created
        if !created {
            context.note("a key directory already exists at \(location.displayName); checked it, nothing changed")
        } else if keyFileExisted {
            context.note("created a key directory at \(location.displayName) under the existing master key file \(location.masterKeyFile)")
        }
        writeSummary(created: created, location: location, file: nil, to: &context)
        return .success
    }

    /// `{"created":…,"dir":…,"file":…,"masterKeyFile":…}` (`dir` with a URI's password
    /// redacted, `file` null on PostgreSQL).
    private static func writeSummary(created: Bool, location: StoreCommand.Location, file: String?, to context: inout CommandContext) {
        var writer = JSONWriter(capacity: 160)
        writer.appendRaw("{\"created\":")
        writer.appendRaw(created ? "true" : "false")
        writer.appendRaw(",\"dir\":")
        writer.appendString(location.displayName)
        writer.appendRaw(",\"file\":")
        if let file { writer.appendString(file) } else { writer.appendRaw("null") }
        writer.appendRaw(",\"masterKeyFile\":")
        writer.appendString(location.masterKeyFile)
        writer.appendRaw("}\n")
        context.write(bytes: writer.bytes)
    }
}

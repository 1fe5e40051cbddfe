import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealPlatform

/// Every `KeyDirectoryError` as `pushseal: error: …` with hints that say what to do (exit 1).
///
/// The message is the store's own one-line description (never secret material); the hints are
/// built from the error and the command line (`--dir`, `--master-key-file`), and for a locked
/// store from a look at the master key file itself, so the first hint names the actual problem.
enum KeyStoreDiagnostics {
    /// Where SQLite's result codes are explained.
    static let sqliteResultCodes = "https://www.sqlite.org/rescode.html"

    /// The diagnostic for `error` on the store at `location`.
    static func error(_ error: KeyDirectoryError, location: StoreCommand.Location) -> CLIError {
        .failure(Diagnostic(error.description, hints: hints(for: error, location: location)))
    }

    /// No key with id `kid` in the store (a lookup or removal by `--kid`): the message names the
    /// id, the hints are those of `KeyDirectoryError.itemNotFound`.
    static func noSuchKey(_ kid: KeyID, location: StoreCommand.Location) -> CLIError {
        .failure(Diagnostic("no key with id \(kid) in the store", hints: hints(for: .itemNotFound, location: location)))
    }

    /// What to do about `error`.
    static func hints(for error: KeyDirectoryError, location: StoreCommand.Location) -> [String] {
        let options = location.commandLineOptions
        switch error {
        case let .locked(why):
            return lockedHints(why: why, location: location)
        case .storeNotFound:
            if location.isConnectionURI {
                return ["create the key directory with: pushseal store init \(options)", "or check the database (and search_path) the URI names"]
            }
            return [
                "create the store with: pushseal store init \(options)",
                "or check --dir: a key store directory holds \(DeviceKeyStore.fileName)",
            ]
        case let .unsupportedFileVersion(found, supported):
            return [
                "the store was written by a newer pushseal (file format \(found); this build reads up to \(supported)); use that version or a later one",
                "this build never modifies such a file",
            ]
        case let .corruptedItem(kid):
            return [
                "the row of key \(kid) was tampered with or damaged; the other keys are unaffected",
                "remove it with: pushseal store remove \(options) --kid \(kid), then provision that key again",
            ]
        case let .epochRecordMissing(conversation):
            return [
                "the conversation's remaining keys are not at fault: do not remove them",
                "restore the store (or at least this conversation's rows and epoch record) from a backup; or remove the whole conversation with: pushseal store remove \(options) --conversation \(ShellQuoting.quote(conversation)), and provision it again",
            ]
        case .rolledBack:
            return [
                "the conversation's rows and epoch record were put back from an older copy (a backup, a replica, a restore); its newer epoch is missing",
                "restore the newer state from a backup, or rotate the conversation (the next epoch is above the one already used)",
            ]
        case .providerKeyMissing:
            return [
                "restore the store from a backup; or create a new provider key with: pushseal store provider-key create \(options), and pin it on the devices before sealing bundles with it",
            ]
        case let .sqlite(code, extendedCode, message):
            return sqliteHints(code: code, extendedCode: extendedCode, message: message, location: location)
        case .invalidStore:
            return [
                "check --dir: \(location.databaseFile) is not a PushSeal key store made by 'pushseal store init'",
            ]
        case .itemNotFound:
            return ["list the store's keys with: pushseal store list \(options)"]
        case .duplicateItem:
            return ["list the store's keys with: pushseal store list \(options)"]
        case .invalidArgument:
            return []
        case .serverUnavailable:
            return ["check the connection URI given with --\(location.option) (host, port, user, password, sslmode) and that the server is running"]
        case .server:
            return ["the database server refused the statement; its SQLSTATE is explained at https://www.postgresql.org/docs/current/errcodes-appendix.html"]
        }
    }

    /// A locked store: the master key file is missing, unreadable, too open, the wrong size or the
    /// wrong key, or the directory cannot be accessed. Looks at the key file to say which.
    private static func lockedHints(why: String, location: StoreCommand.Location) -> [String] {
        let file = location.masterKeyFile
        let quoted = ShellQuoting.quote(file)
        let which = location.masterKeyFileGiven
            ? "the master key file given with --master-key-file"
            : "the default master key file <dir>.master.key, beside the store directory; give another one with --master-key-file"
        if why.hasPrefix("wrong master key") {
            return [
                "\(file) is not the master key this store was initialized with (\(which))",
                "a store's master key cannot be replaced: use the file 'pushseal store init' created for it",
            ]
        }
        if why.contains("is a symbolic link") {
            return ["give --master-key-file the path of the key file itself: symbolic links to it are refused (\(which))"]
        }
        if why.contains("is owned by user") {
            return ["run as the key file's owner, or give it to this user: chown \"$(id -u)\" \(quoted)"]
        }
        switch FileStatus(file) {
        case .missing:
            let parent = FileSystem.directoryName(of: file)
            if case .missing = FileStatus(parent) {
                return [
                    "the directory \(parent) of the master key file does not exist (\(which))",
                    "create it first, or choose another --master-key-file",
                ]
            }
            return [
                "the master key file \(file) does not exist (\(which))",
                "without it this store's keys cannot be read: restore the file, or start over with a new store directory",
            ]
        case let .file(size, permissions):
            if permissions & 0o077 != 0 {
                return [
                    "the master key file must not be accessible by group or others (it is \(FileStatus.octal(permissions))): chmod 600 \(quoted)",
                ]
            }
            if size != Int64(MasterKeySource.byteCount) {
                return ["a master key file holds exactly \(MasterKeySource.byteCount) raw bytes; \(file) holds \(size) (\(which))"]
            }
            return [
                "check the master key file \(file) (32 bytes, mode 0600, readable by this user) and the permissions of \(location.displayName)",
            ]
        case .directory, .other:
            return ["\(file) is not a regular file; a master key file holds exactly \(MasterKeySource.byteCount) raw bytes (\(which))"]
        case let .inaccessible(reason):
            return ["cannot look at the master key file \(file): \(reason); check the permissions of its directory"]
        }
    }

    /// SQLite errors: code, extended code and message are in the message; the hint says what the
    /// common codes mean here.
    private static func sqliteHints(code: Int32, extendedCode: Int32, message: String, location: StoreCommand.Location) -> [String] {
        let database = location.databaseFile
        var hints: [String]
        switch code {
        case 5, 6:  // SQLITE_BUSY, SQLITE_LOCKED
            hints = ["another process held the store's lock for more than \(DeviceKeyStore.lockWaitSeconds) seconds; try again"]
        case 8:  // SQLITE_READONLY
            hints = ["this process cannot write the store: check write permission on \(location.displayName) and \(database)"]
        case 10:  // SQLITE_IOERR
            hints = ["an I/O error on \(database): check the disk and the file system"]
        case 11:  // SQLITE_CORRUPT
            hints = ["\(database) is damaged: restore it from a backup, or create a new store and provision its keys again"]
        case 13:  // SQLITE_FULL
            hints = ["the disk holding \(database) is full"]
        case 14:  // SQLITE_CANTOPEN
            hints = ["cannot open \(database): check that it and \(location.displayName) are accessible"]
        case 26:  // SQLITE_NOTADB
            hints = ["\(database) is not an SQLite database: check --dir"]
        default:
            hints = []
        }
        hints.append("SQLite result code \(code), extended code \(extendedCode) (\(sqliteResultCodes))")
        return hints
    }
}

import Foundation
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Testing
import PushSealPlatform

@Suite("Store file and directory errors")
struct StoreFileTests {
    @Test func missingStoreIsNotFoundAndNothingIsCreated() throws {
        let dir = TemporaryDirectory()
        let source = MasterKeySource.keyFile(path: dir.keyFile, createIfMissing: true)
        // Missing directory.
        guard case .storeNotFound = storeError({ try DeviceKeyStore(directory: dir.store, masterKey: source) }) else {
            Issue.record("expected storeNotFound")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: dir.store))
        // Existing directory, missing file.
        try FileManager.default.createDirectory(atPath: dir.store, withIntermediateDirectories: false)
        guard case .storeNotFound = storeError({ try DeviceKeyStore(directory: dir.store, masterKey: source) }) else {
            Issue.record("expected storeNotFound")
            return
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.store) == [])
        #expect(!FileManager.default.fileExists(atPath: dir.keyFile))
    }

    @Test func anEmptyFileIsNotAStoreUntilCreated() throws {
        let dir = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.store, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: dir.database, contents: Data()))
        guard case .storeNotFound = storeError({ try DeviceKeyStore(directory: dir.store, masterKey: .bytes(.random())) }) else {
            Issue.record("expected storeNotFound")
            return
        }
        let store = try makeStore(dir)
        try store.add(.generate(), conversation: "c", epoch: 1)
        #expect(try reopen(dir).items().count == 1)
    }

    @Test func createsMissingParentDirectories() throws {
        let dir = TemporaryDirectory()
        let deep = dir.file("a/b/c")
        let store = try DeviceKeyStore(directory: deep, masterKey: .bytes(.random()), create: true)
        #expect(store.path == deep + "/pushseal-keys.sqlite3")
        #expect(FileManager.default.fileExists(atPath: store.path))
    }

    @Test func aFileThatIsNotADatabaseIsAClearSQLiteError() throws {
        let dir = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.store, withIntermediateDirectories: false)
        for contents in [Data("hello, this is not a database\n".utf8), Data(repeating: 0xA5, count: 8192)] {
            try contents.write(to: URL(fileURLWithPath: dir.database))
            for create in [false, true] {
                let error = storeError { try DeviceKeyStore(directory: dir.store, masterKey: .bytes(.random()), create: create) }
                guard case let .sqlite(code, extended, message) = error else {
                    Issue.record("expected an SQLite error, got \(String(describing: error))")
                    continue
                }
                #expect(code == 26)  // SQLITE_NOTADB
                #expect(extended == 26)
                #expect(message.contains("not a database"))
                #expect(error!.description.contains("SQLite error 26"))
            }
            // Never overwritten.
            #expect(try Data(contentsOf: URL(fileURLWithPath: dir.database)) == contents)
        }
    }

    @Test func anotherApplicationsDatabaseIsRefused() throws {
        let dir = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.store, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: dir.database, contents: Data()))
        try RawDatabase(dir.database).execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hi')")
        for create in [false, true] {
            let error = storeError { try DeviceKeyStore(directory: dir.store, masterKey: .bytes(.random()), create: create) }
            guard case let .invalidStore(why) = error else {
                Issue.record("expected invalidStore, got \(String(describing: error))")
                continue
            }
            #expect(why.contains("another application"))
        }
        #expect(try RawDatabase(dir.database).integer("SELECT count(*) FROM notes") == 1)
    }

    @Test func aNewerFileVersionIsUnsupported() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let key = ConversationKey.generate()
        try store.add(key, conversation: "c", epoch: 1)
        try RawDatabase(dir.database).execute("PRAGMA user_version = 10")

        let expected = KeyDirectoryError.unsupportedFileVersion(found: 10, supported: 9)
        #expect(storeError { try reopen(dir) } == expected)
        #expect(storeError { try makeStore(dir) } == expected)
        // An instance opened before the upgrade stops too, instead of writing an old format.
        #expect(storeError { try store.key(for: key.id) } == expected)
        #expect(storeError { try store.add(.generate(), conversation: "c", epoch: 2) } == expected)
        guard case .unavailable(expected) = DeviceKeyStore.lookup(key.id, directory: dir.store, masterKey: .keyFile(path: dir.keyFile)) else {
            Issue.record("lookup")
            return
        }
        #expect(DeviceKeyStore.supportedFileVersion == 9)
        #expect(try RawDatabase(dir.database).integer("PRAGMA user_version") == 10)
    }

    @Test func theFileRecordsItsFormat() throws {
        let dir = TemporaryDirectory()
        _ = try makeStore(dir)
        let raw = try RawDatabase(dir.database)
        #expect(try raw.integer("PRAGMA user_version") == 9)
        #expect(try raw.integer("PRAGMA application_id") == 0x5053_4B53)
        #expect(try raw.integer("SELECT count(*) FROM meta WHERE name = 'verifier' AND length(value) = 57") == 1)
        #expect(try raw.column("PRAGMA journal_mode") == [Array("delete".utf8)])
    }

    @Test func aMissingVerifierIsAnInvalidStore() throws {
        let dir = TemporaryDirectory()
        _ = try makeStore(dir)
        try RawDatabase(dir.database).execute("DELETE FROM meta")
        guard case .invalidStore = storeError({ try reopen(dir) }) else {
            Issue.record("expected invalidStore")
            return
        }
    }

    @Test func aWALFileIsSwitchedBackToTheRollbackJournal() throws {
        let dir = TemporaryDirectory()
        _ = try makeStore(dir)
        try RawDatabase(dir.database).execute("PRAGMA journal_mode = WAL")
        let store = try reopen(dir)
        try store.add(.generate(), conversation: "c", epoch: 1)
        #expect(try RawDatabase(dir.database).column("PRAGMA journal_mode") == [Array("delete".utf8)])
    }

    @Test func aStoreRecreatedWithAnotherKeyIsDetectedByOpenInstances() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        try store.add(.generate(), conversation: "c", epoch: 1)
        // Another process wipes the store by deleting it and starts over with a new master key.
        try FileManager.default.removeItem(atPath: dir.database)
        #expect(storeError { try store.items() } == .storeNotFound("\(dir.database) does not exist"))
        _ = try DeviceKeyStore(directory: dir.store, masterKey: .bytes(.random()), create: true)
        let error = storeError { try store.asDirectory.rotate(conversation: "c") }
        #expect(error?.lockedReason?.contains("re-created with another master key") == true, "\(String(describing: error))")
    }

    @Test func aStoreRecreatedWithTheSameKeyKeepsWorking() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        try FileManager.default.removeItem(atPath: dir.database)
        _ = try makeStore(dir)
        let rotated = try store.asDirectory.rotate(conversation: "c")
        #expect(try reopen(dir).key(for: rotated.item.keyID).key == rotated.key)
    }

    @Test func aDirectoryPathThroughARegularFileIsLocked() throws {
        let dir = TemporaryDirectory()
        #expect(FileManager.default.createFile(atPath: dir.file("plain"), contents: Data("x".utf8)))
        for directory in [dir.file("plain/store"), dir.file("plain")] {
            for create in [false, true] {
                let error = storeError { try DeviceKeyStore(directory: directory, masterKey: .bytes(.random()), create: create) }
                #expect(error?.lockedReason != nil, "\(directory) create \(create): \(String(describing: error))")
            }
        }
        #expect(storeError { try DeviceKeyStore(directory: dir.file("plain/store"), masterKey: .bytes(.random())) }
            == .locked("cannot access directory \(dir.file("plain/store")): Not a directory"))
    }

    @Test func theDatabasePathBeingADirectoryIsAnInvalidStore() throws {
        let dir = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.database, withIntermediateDirectories: true)
        guard case .invalidStore = storeError({ try DeviceKeyStore(directory: dir.store, masterKey: .bytes(.random()), create: true) }) else {
            Issue.record("expected invalidStore")
            return
        }
    }
}

/// Permission failures, checked in a helper process. Tests run as root in CI, and root ignores
/// file modes, so the helper drops to the `nobody` user (uid 65534) first when it is root.
@Suite("Permissions (helper process)")
struct PermissionTests {
    private let masterHex = String(repeating: "5a", count: 32)

    /// A store owned by the test (root or not) in a directory others may traverse.
    private func prepare() throws -> (TemporaryDirectory, KeyID) {
        let dir = TemporaryDirectory()
        chmod(dir.path, 0o755)
        let store = try DeviceKeyStore(directory: dir.store, masterKey: .bytes(SecretKey(bytes: Hex.decode(masterHex)!)), create: true)
        let key = ConversationKey.generate()
        try store.add(key, conversation: "c", epoch: 1)
        chmod(dir.store, 0o755)
        return (dir, key.id)
    }

    private func probe(_ dir: TemporaryDirectory) throws -> [String] {
        let worker = try Worker(["probe", "--dir", dir.store, "--key-hex", masterHex, "--as-nobody"], outputPrefix: dir.file("probe"))
        let end = worker.wait()
        #expect(end == .exited(0), "\(worker.errorOutput)")
        return worker.outputLines
    }

    @Test func theHelperCanOpenAnAccessibleStore() throws {
        let (dir, _) = try prepare()
        chmod(dir.database, 0o666)
        chmod(dir.store, 0o777)
        let lines = try probe(dir)
        #expect(lines == ["open ok", "read ok 1", "write ok"])
    }

    @Test func anUnreadableDirectoryIsLocked() throws {
        let (dir, _) = try prepare()
        chmod(dir.store, 0o000)
        let lines = try probe(dir)
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("open locked cannot access") == true, "\(lines)")
        #expect(lines.first?.contains("Permission denied") == true, "\(lines)")
    }

    @Test func anUnreadableFileIsLocked() throws {
        let (dir, _) = try prepare()
        chmod(dir.database, 0o000)
        let lines = try probe(dir)
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("open locked cannot open") == true, "\(lines)")
    }

    @Test func aReadOnlyFileCanBeReadButWritesFailClearly() throws {
        let (dir, _) = try prepare()
        chmod(dir.database, 0o444)
        chmod(dir.store, 0o777)  // the directory is writable: only the file is read-only
        let lines = try probe(dir)
        #expect(lines.count == 3)
        #expect(lines.first == "open ok")
        #expect(lines.dropFirst().first == "read ok 1")
        // SQLITE_READONLY (8), "attempt to write a readonly database".
        #expect(lines.last?.hasPrefix("write sqlite 8 8 attempt to write a readonly database") == true, "\(lines)")
    }
}

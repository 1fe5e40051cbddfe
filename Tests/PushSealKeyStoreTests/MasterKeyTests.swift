import Dispatch
import Foundation
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Synchronization
import Testing

@Suite("Master key sources")
struct MasterKeyTests {
    private func mode(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue
    }

    @Test func initCreatesA0600KeyFileOf32Bytes() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        #expect(try mode(dir.keyFile) == 0o600)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.keyFile)).count == 32)
        #expect(try mode(dir.store) == 0o700)
        #expect(try mode(dir.database) == 0o600)
        let key = ConversationKey.generate()
        try store.add(key, conversation: "c", epoch: 1)
        #expect(try reopen(dir).key(for: key.id).key == key)
        // No temporary files are left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["master.key", "store"])
    }

    @Test func appSuppliedBytesWork() throws {
        let dir = TemporaryDirectory()
        let master = SecretKey.random()
        let store = try DeviceKeyStore(directory: dir.store, masterKey: .bytes(master), create: true)
        let key = ConversationKey.generate()
        try store.add(key, conversation: "c", epoch: 1)
        let copy = SecretKey(bytes: master.withUnsafeBytes { Array($0) })
        #expect(try DeviceKeyStore(directory: dir.store, masterKey: .bytes(copy)).key(for: key.id).key == key)
    }

    @Test func wrongMasterKeyIsLockedAndChangesNothing() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let key = ConversationKey.generate()
        try store.add(key, conversation: "c", epoch: 1)
        let before = try Data(contentsOf: URL(fileURLWithPath: dir.database))

        for create in [false, true] {
            let error = storeError { try DeviceKeyStore(directory: dir.store, masterKey: .bytes(.random()), create: create) }
            #expect(error?.lockedReason?.contains("wrong master key") == true, "\(String(describing: error))")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.database)) == before)
        #expect(try reopen(dir).key(for: key.id).key == key)
    }

    @Test func wrongLengthBytesAreLocked() throws {
        let dir = TemporaryDirectory()
        let error = storeError { try DeviceKeyStore(directory: dir.store, masterKey: .bytes(.random(byteCount: 16)), create: true) }
        #expect(error?.lockedReason?.contains("must be 32") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: dir.store))
    }

    @Test func missingKeyFileIsLockedAndNeverRecreatedForAnExistingStore() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let key = ConversationKey.generate()
        try store.add(key, conversation: "c", epoch: 1)
        try FileManager.default.removeItem(atPath: dir.keyFile)

        for (createIfMissing, create) in [(false, false), (true, false), (true, true)] {
            let error = storeError {
                try DeviceKeyStore(directory: dir.store, masterKey: .keyFile(path: dir.keyFile, createIfMissing: createIfMissing), create: create)
            }
            #expect(error?.lockedReason?.contains("does not exist") == true, "\(String(describing: error))")
            #expect(!FileManager.default.fileExists(atPath: dir.keyFile))
        }
        // The instance opened before keeps working: it holds the master key.
        #expect(try store.key(for: key.id).key == key)
    }

    @Test func aNewStoreIsNotCreatedWhenTheKeyFileIsMissing() throws {
        let dir = TemporaryDirectory()
        let error = storeError { try DeviceKeyStore(directory: dir.store, masterKey: .keyFile(path: dir.keyFile), create: true) }
        #expect(error?.lockedReason?.contains("does not exist") == true)
        #expect(!FileManager.default.fileExists(atPath: dir.store))
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660, 0o606, 0o700 | 0o010])
    func groupOrWorldAccessibleKeyFileIsRefused(permissions: Int) throws {
        let dir = TemporaryDirectory()
        _ = try makeStore(dir)
        try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: dir.keyFile)
        let error = storeError { try reopen(dir) }
        #expect(error?.lockedReason?.contains("accessible by group or others") == true, "\(String(describing: error))")
        // Owner-only modes are fine.
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: dir.keyFile)
        _ = try reopen(dir)
    }

    @Test(arguments: [0, 31, 33, 64])
    func keyFileOfTheWrongLengthIsRefused(length: Int) throws {
        let dir = TemporaryDirectory()
        _ = try makeStore(dir)
        try Data(repeating: 7, count: length).write(to: URL(fileURLWithPath: dir.keyFile))
        let error = storeError { try reopen(dir) }
        #expect(error?.lockedReason?.contains("exactly 32") == true, "\(String(describing: error))")
    }

    @Test func keyFileThatIsADirectoryIsRefused() throws {
        let dir = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.keyFile, withIntermediateDirectories: false)
        let error = storeError { try makeStore(dir) }
        #expect(error?.lockedReason?.contains("not a regular file") == true, "\(String(describing: error))")
    }

    @Test func theKeyFileMayLiveInsideTheStoreDirectory() throws {
        let dir = TemporaryDirectory()
        let source = MasterKeySource.keyFile(path: dir.store + "/master.key", createIfMissing: true)
        let store = try DeviceKeyStore(directory: dir.store, masterKey: source, create: true)
        let key = try store.asDirectory.rotate(conversation: "c")
        #expect(try DeviceKeyStore(directory: dir.store, masterKey: .keyFile(path: dir.store + "/master.key")).key(for: key.item.keyID).key == key.key)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.store).sorted() == ["master.key", "pushseal-deliveries", "pushseal-keys.sqlite3"])
    }

    @Test func keyFileInAMissingDirectoryIsLocked() throws {
        let dir = TemporaryDirectory()
        let error = storeError {
            try DeviceKeyStore(directory: dir.store, masterKey: .keyFile(path: dir.file("no/such/dir/key"), createIfMissing: true), create: true)
        }
        #expect(error?.lockedReason?.contains("cannot create master key file") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: dir.database))
    }

    @Test func concurrentCreationAgreesOnOneKey() throws {
        let dir = TemporaryDirectory()
        let stores = Mutex<[DeviceKeyStore]>([])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            do {
                let store = try makeStore(dir)
                stores.withLock { $0.append(store) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let all = stores.withLock { $0 }
        #expect(all.count == 8)
        // Every instance reads what any other wrote.
        for (index, store) in all.enumerated() {
            let key = ConversationKey.generate()
            try store.add(key, conversation: "c", epoch: Int64(index))
            #expect(try all[(index + 1) % all.count].key(for: key.id).key == key)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["master.key", "store"])
    }

    @Test func sourcesDescribeThemselvesWithoutTheKey() {
        #expect(MasterKeySource.keyFile(path: "/x/k").description == "key file /x/k")
        #expect(MasterKeySource.bytes(.random()).description == "app-supplied key")
    }
}

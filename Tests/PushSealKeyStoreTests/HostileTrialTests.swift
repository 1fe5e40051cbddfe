import CSQLite
import Foundation
import PushSealCore
@testable import PushSealKeyDirectory
@testable import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Synchronization
import Testing
import PushSealPlatform

/// The defects of issue 16's hostile trial, at the store's level (THREAT-MODEL.md §7.13).
@Suite("Hostile trial, second round")
struct HostileTrialTests {
    // MARK: 1. Master key file: only a regular file owned by this user, never a symbolic link

    private func keyFileError(_ prepare: (String) throws -> Void) throws -> String? {
        let dir = TemporaryDirectory()
        _ = try makeStore(dir)
        try FileManager.default.removeItem(atPath: dir.keyFile)
        try prepare(dir.keyFile)
        let started = MonotonicClock.seconds()
        let error = storeError { try reopen(dir) }
        #expect(MonotonicClock.seconds() - started < 2, "a bad key file fails at once")
        return error?.lockedReason
    }

    @Test func aKeyFileThatIsADirectoryADeviceOrASocketIsRefusedAtOnce() throws {
        let directory = try keyFileError { path in try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false) }
        #expect(directory?.contains("is not a regular file (it is a directory)") == true, "\(directory ?? "no error")")

        let fifo = try keyFileError { path in #expect(mkfifo(path, 0o600) == 0) }
        #expect(fifo?.contains("is not a regular file (it is a FIFO)") == true, "\(fifo ?? "no error")")

        let device = try keyFileError { path in #expect(symlink("/dev/null", path) == 0) }
        #expect(device?.contains("is a symbolic link; symbolic links are not followed") == true, "\(device ?? "no error")")

        let socketError = try keyFileError { path in
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            #expect(bound == 0, "bind: \(String(cString: strerror(errno)))")
            close(fd)
        }
        #expect(socketError?.contains("is not a regular file") == true, "\(socketError ?? "no error")")
    }

    @Test func aSymbolicLinkToAValidKeyFileIsRefused() throws {
        let dir = TemporaryDirectory()
        _ = try makeStore(dir)
        let moved = dir.file("elsewhere.key")
        #expect(rename(dir.keyFile, moved) == 0)
        #expect(symlink(moved, dir.keyFile) == 0)
        let reason = storeError { try reopen(dir) }?.lockedReason
        #expect(reason?.contains("is a symbolic link; symbolic links are not followed: give the path of the file itself") == true, "\(reason ?? "no error")")
        // The file itself still works.
        #expect(throws: Never.self) { try DeviceKeyStore(directory: dir.store, masterKey: .keyFile(path: moved)) }
    }

    @Test func aKeyFileOwnedByAnotherUserIsRefused() throws {
        let dir = TemporaryDirectory()
        _ = try makeStore(dir)
        let path: String
        if geteuid() == 0 {
            #expect(chown(dir.keyFile, 65_534, 65_534) == 0)
            path = dir.keyFile
        } else {
            path = "/etc/passwd"  // a regular file owned by root
        }
        let reason = storeError { try DeviceKeyStore(directory: dir.store, masterKey: .keyFile(path: path)) }?.lockedReason
        #expect(reason?.contains("is owned by user") == true, "\(reason ?? "no error")")
    }

    // MARK: 3. One bounded busy wait for every statement, pragmas included

    /// A python3 process holding an EXCLUSIVE lock on `database` for `seconds`.
    private func holdExclusiveLock(_ database: String, seconds: Double) throws -> Worker {
        let script = """
            import sqlite3, sys, time
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("BEGIN EXCLUSIVE")
            print("locked", flush=True)
            time.sleep(float(sys.argv[2]))
            db.execute("ROLLBACK")
            """
        let holder = try Worker(["python3", "-c", script, database, String(seconds)], outputPrefix: database + ".holder", executable: "/usr/bin/env")
        try #require(holder.waitForOutput(timeout: 30) && holder.outputLines.first == "locked", "python3 did not take the lock: \(holder.errorOutput)")
        return holder
    }

    @Test func aLockHeldForSevenSecondsIsWaitedFor() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let key = try store.asDirectory.rotate(conversation: "c")
        let holder = try holdExclusiveLock(dir.database, seconds: 7)
        defer { _ = holder.kill9() }
        let started = MonotonicClock.seconds()
        // A new instance: its connection's pragmas run while the lock is held.
        let found = try reopen(dir).asDirectory.currentKey(conversation: "c")
        let waited = MonotonicClock.seconds() - started
        #expect(found.key == key.key)
        #expect(waited > 5, "the lock was released after about 7 s; waited \(waited) s")
        print("busy: a 7 s EXCLUSIVE lock was waited for (\(String(format: "%.1f", waited)) s)")
    }

    @Test func aLockHeldLongerFailsAfterTheStatedBound() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        _ = try store.asDirectory.rotate(conversation: "c")
        let holder = try holdExclusiveLock(dir.database, seconds: Double(DeviceKeyStore.lockWaitSeconds) + 10)
        defer { _ = holder.kill9() }
        let started = MonotonicClock.seconds()
        let error = storeError { try store.asDirectory.currentKey(conversation: "c") }
        let waited = MonotonicClock.seconds() - started
        guard case let .sqlite(code, _, message)? = error else {
            Issue.record("expected SQLITE_BUSY, got \(String(describing: error))")
            return
        }
        #expect(code == SQLITE_BUSY)
        #expect(message.contains("waited \(DeviceKeyStore.lockWaitSeconds) s for another process's lock"), "\(message)")
        #expect(waited >= Double(DeviceKeyStore.lockWaitSeconds) - 0.5 && waited < Double(DeviceKeyStore.lockWaitSeconds) + 3, "waited \(waited) s")
        print("busy: gave up after \(String(format: "%.1f", waited)) s (bound \(DeviceKeyStore.lockWaitSeconds) s)")
    }

    // MARK: 5. Every column is authenticated: an edit never steers which key comes out

    @Test func anEditedNotAfterTimeNeverSelectsAnotherKey() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        for _ in 1...3 { _ = try store.asDirectory.rotate(conversation: "c") }
        let third = try store.asDirectory.currentKey(conversation: "c")
        #expect(third.item.epoch == 3)
        try RawDatabase(dir.database).execute("UPDATE keys SET not_after = 1 WHERE epoch = 3")
        #expect(storeError { try store.asDirectory.currentKey(conversation: "c") } == .corruptedItem(third.item.keyID))
        #expect(storeError { try store.items(conversation: "c") } == .corruptedItem(third.item.keyID))
        #expect(storeError { try store.key(for: third.item.keyID) } == .corruptedItem(third.item.keyID))
    }

    @Test func anExpiredKeyMadeLiveAgainIsCorrupted() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let first = try store.asDirectory.rotate(conversation: "c")
        let second = try store.asDirectory.rotate(conversation: "c")
        // The second key expires too (added with a past not-after time at epoch 3).
        try store.add(ConversationKey.generate(), conversation: "c", epoch: 3, notAfter: clock.now - 1)
        // The newest epoch is retired: no current key, never a fall-back to epoch 2.
        #expect(storeError { try store.asDirectory.currentKey(conversation: "c") } == .itemNotFound)
        clock.advance(100)  // epoch 1 is retired
        try RawDatabase(dir.database).execute("UPDATE keys SET not_after = NULL WHERE kid = \(sqlBlob(first.item.keyID.bytes))")
        #expect(storeError { try store.key(for: first.item.keyID) } == .corruptedItem(first.item.keyID))
        // The other rows are untouched.
        #expect(try store.key(for: second.item.keyID).item.notAfter == nil)
    }

    @Test func editedLabelOrCreationTimeIsCorrupted() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let untouched = ConversationKey.generate()
        try store.add(untouched, conversation: "u", epoch: 1, label: "phone")
        for (index, edit) in ["label = 'laptop'", "label = NULL", "created_at = created_at + 1", "not_after = 9999999999"].enumerated() {
            let key = ConversationKey.generate()
            try store.add(key, conversation: "c\(index)", epoch: 1, label: "phone")
            try RawDatabase(dir.database).execute("UPDATE keys SET \(edit) WHERE kid = \(sqlBlob(key.id.bytes))")
            #expect(storeError { try store.key(for: key.id) } == .corruptedItem(key.id), "\(edit)")
            #expect(storeError { try store.asDirectory.currentKey(conversation: "c\(index)") } == .corruptedItem(key.id), "\(edit)")
        }
        #expect(try store.key(for: untouched.id).item.label == "phone")
    }

    @Test func rotationResealsTheEpochsItRetires() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let first = try store.asDirectory.rotate(conversation: "c")
        let before = try RawDatabase(dir.database).column("SELECT sealed FROM keys WHERE kid = \(sqlBlob(first.item.keyID.bytes))")
        _ = try store.asDirectory.rotate(conversation: "c")
        let after = try RawDatabase(dir.database).column("SELECT sealed FROM keys WHERE kid = \(sqlBlob(first.item.keyID.bytes))")
        #expect(before != after)
        let retired = try store.key(for: first.item.keyID)
        #expect(retired.key == first.key)
        #expect(retired.item.notAfter == clock.now)
        // A tampered row without a not-after time makes the rotation fail whole.
        let current = try store.asDirectory.currentKey(conversation: "c")
        try RawDatabase(dir.database).execute("UPDATE keys SET created_at = 5 WHERE kid = \(sqlBlob(current.item.keyID.bytes))")
        #expect(storeError { try store.asDirectory.rotate(conversation: "c") } == .corruptedItem(current.item.keyID))
        #expect(try RawDatabase(dir.database).integer("SELECT count(*) FROM keys") == 2)
    }

    /// A file format version 1 store, built from the version-1 construction (Docs/KEY-STORE.md
    /// §3, format 1): items bound to kid, epoch and conversation only.
    private func makeVersion1Store(_ dir: TemporaryDirectory, keys: [(ConversationKey, String, Int64, Int64?)]) throws -> SecretKey {
        try FileManager.default.createDirectory(atPath: dir.store, withIntermediateDirectories: true)
        let masterBytes = SystemRandom.bytes(count: 32)
        try Data(masterBytes).write(to: URL(fileURLWithPath: dir.keyFile))
        chmod(dir.keyFile, 0o600)
        let masterKey = SecretKey(bytes: masterBytes)
        _ = FileManager.default.createFile(atPath: dir.database, contents: nil)
        let raw = try RawDatabase(dir.database)
        try raw.execute(Schema.steps[0])
        try raw.execute("INSERT INTO meta (name, value) VALUES ('verifier', \(sqlBlob(ItemSealing.makeVerifier(masterKey: MasterKey(masterKey)))))")
        for (key, conversation, epoch, notAfter) in keys {
            let salt = SystemRandom.bytes(count: 24)
            let itemKey = try HKDFSHA256.expand(pseudoRandomKey: masterKey, info: Array("pushseal v1 store item".utf8) + salt, outputByteCount: 32)
            let cid = Array(conversation.utf8)
            let ad = [0x01] + key.id.bytes + withUnsafeBytes(of: epoch.bigEndian) { Array($0) }
                + withUnsafeBytes(of: UInt32(cid.count).bigEndian) { Array($0) } + cid
            let sealed = try ChaCha20Poly1305.seal(key.withUnsafeBytes { Array($0) }, using: itemKey, nonce: [UInt8](repeating: 0, count: 12), authenticating: ad)
            try raw.execute("""
                INSERT INTO keys (kid, conversation, epoch, label, created_at, not_after, sealed)
                VALUES (\(sqlBlob(key.id.bytes)), '\(conversation)', \(epoch), 'v1', 1700000000, \(notAfter.map(String.init) ?? "NULL"), \(sqlBlob([0x01] + salt + sealed)))
                """)
        }
        try raw.execute("PRAGMA application_id = \(Schema.applicationID)")
        try raw.execute("PRAGMA user_version = 1")
        return masterKey
    }

    @Test func aVersion1StoreIsMigratedToTheCurrentVersion() throws {
        let dir = TemporaryDirectory()
        let (a, b, c) = (ConversationKey.generate(), ConversationKey.generate(), ConversationKey.generate())
        _ = try makeVersion1Store(dir, keys: [(a, "alice", 1, 1_800_000_000), (b, "alice", 2, nil), (c, "bob", 1, nil)])
        // A damaged version-1 row stays damaged.
        var damaged = try RawDatabase(dir.database).column("SELECT sealed FROM keys WHERE kid = \(sqlBlob(c.id.bytes))")[0]
        damaged[40] ^= 0x01
        try RawDatabase(dir.database).execute("UPDATE keys SET sealed = \(sqlBlob(damaged)) WHERE kid = \(sqlBlob(c.id.bytes))")
        #expect(try RawDatabase(dir.database).integer("PRAGMA user_version") == 1)

        let store = try reopen(dir)
        #expect(try RawDatabase(dir.database).integer("PRAGMA user_version") == DeviceKeyStore.supportedFileVersion)
        // Format 3: one epoch record per conversation, from its newest row.
        #expect(try RawDatabase(dir.database).integer("SELECT count(*) FROM epochs") == 2)
        #expect(try store.key(for: a.id).key == a)
        #expect(try store.key(for: a.id).item.notAfter == 1_800_000_000)
        #expect(try store.asDirectory.currentKey(conversation: "alice").key == b)
        #expect(storeError { try store.key(for: c.id) } == .corruptedItem(c.id))
        let formats = try RawDatabase(dir.database).column("SELECT substr(sealed, 1, 1) FROM keys ORDER BY conversation, epoch")
        #expect(formats == [[0x02], [0x02], [0x01]])
        // Migrated rows are bound to every column now.
        try RawDatabase(dir.database).execute("UPDATE keys SET not_after = 1 WHERE kid = \(sqlBlob(b.id.bytes))")
        #expect(storeError { try store.asDirectory.currentKey(conversation: "alice") } == .corruptedItem(b.id))
    }

    // MARK: 6. Racing creators: exactly one of them created the store

    @Test func exactlyOneOfManyRacingCreatorsCreatesTheStore() throws {
        for round in 0..<30 {
            let dir = TemporaryDirectory()
            let created = Atomic<Int>(0)
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                do {
                    let store = try makeStore(dir)
                    if store.createdStore { created.add(1, ordering: .relaxed) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [], "round \(round)")
            #expect(created.load(ordering: .relaxed) == 1, "round \(round)")
        }
        #expect(try makeStore(TemporaryDirectory()).createdStore)
    }

    // MARK: 8. Keychain accessibility (the decision, platform-neutral)

    @Test func keychainItemsOfAWeakerClassAreMigratedUnknownOnesRefused() {
        #expect(KeychainAccessibility.decision(for: .afterFirstUnlockThisDeviceOnly) == .accept)
        #expect(KeychainAccessibility.decision(for: KeychainAccessibility.required) == .accept)
        #expect(KeychainAccessibility.decision(for: .whenUnlockedThisDeviceOnly) == .accept)
        #expect(KeychainAccessibility.decision(for: .whenPasscodeSetThisDeviceOnly) == .accept)
        for weaker: KeychainAccessibility in [.always, .alwaysThisDeviceOnly, .afterFirstUnlock, .whenUnlocked] {
            #expect(KeychainAccessibility.decision(for: weaker) == .migrate, "\(weaker)")
        }
        guard case let .refuse(unknown) = KeychainAccessibility.decision(for: .unknown("zz")) else {
            Issue.record("an unknown class must be refused")
            return
        }
        #expect(unknown.contains("'zz' is unknown"))
        guard case .refuse = KeychainAccessibility.decision(for: nil) else {
            Issue.record("an item without a class must be refused")
            return
        }
    }

    // MARK: 9. Temporaries of a killed creator are removed by the next creation

    @Test func temporariesOfDeadProcessesAreRemovedOthersKept() throws {
        let dir = TemporaryDirectory()
        // A PID that is certainly dead: a child that has exited and been reaped.
        var child: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { free(argv[0]) }
        #expect(posix_spawn(&child, "/bin/true", nil, nil, argv, environ) == 0)
        var status: Int32 = 0
        waitpid(child, &status, 0)
        let dead = dir.file("master.key.tmp-\(child)-0011223344556677")
        let alive = dir.file("master.key.tmp-\(getpid())-8899aabbccddeeff")
        let unrelated = dir.file("master.key.tmp-notapid")
        for path in [dead, alive, unrelated] { _ = FileManager.default.createFile(atPath: path, contents: Data([1, 2, 3])) }
        _ = try makeStore(dir)
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(FileManager.default.fileExists(atPath: alive))
        #expect(FileManager.default.fileExists(atPath: unrelated))
    }
}

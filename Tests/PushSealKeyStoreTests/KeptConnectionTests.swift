import Dispatch
import Foundation
import Synchronization
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Testing
import PushSealPlatform

/// A store instance keeps one SQLite connection (issue 24 item 7): what it holds open between
/// calls, and that a file re-created or replaced underneath is still detected.
@Suite("Kept connection")
struct KeptConnectionTests {
    /// Another store (same master key) with one key, moved over `dir`'s database file by rename,
    /// as a restore from a backup or another process re-creating the store would.
    private func replaceByRename(_ dir: TemporaryDirectory, masterKey: MasterKeySource) throws -> StoredKey {
        let other = TemporaryDirectory()
        let replacement = try DeviceKeyStore(directory: other.store, masterKey: masterKey, create: true)
        let key = try replacement.asDirectory.rotate(conversation: "replacement")
        #expect(rename(other.database, dir.database) == 0, "rename: \(errno)")
        return key
    }

    @Test func aFileReplacedByRenameIsReopened() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let before = try store.asDirectory.rotate(conversation: "c")
        #expect(try store.key(for: before.item.keyID).key == before.key)  // the connection is open on the old file
        let replaced = try replaceByRename(dir, masterKey: .keyFile(path: dir.keyFile))
        // The path names another file: the instance reads the new one, not the unlinked old one.
        #expect(try store.key(for: replaced.item.keyID).key == replaced.key)
        #expect(storeError { try store.key(for: before.item.keyID) } == .itemNotFound)
        #expect(try store.items().map(\.conversation) == ["replacement"])
    }

    @Test func aFileReplacedWithAnotherMasterKeyIsDetected() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        _ = try store.asDirectory.rotate(conversation: "c")
        _ = try replaceByRename(dir, masterKey: .bytes(.random()))
        let error = storeError { try store.items() }
        #expect(error?.lockedReason?.contains("re-created with another master key") == true, "\(String(describing: error))")
    }

    /// A call skips the header check only while the file is unchanged since the connection last
    /// checked it: a change in place by another connection after reads (nothing written by the
    /// instance itself since) is still caught.
    @Test func aHeaderChangedInPlaceAfterReadsIsDetected() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let key = try store.asDirectory.rotate(conversation: "c")
        for _ in 0..<3 { #expect(try store.key(for: key.item.keyID).key == key.key) }
        try RawDatabase(dir.database).execute("PRAGMA user_version = 10")
        #expect(storeError { try store.key(for: key.item.keyID) } == .unsupportedFileVersion(found: 10, supported: 9))
        try RawDatabase(dir.database).execute("PRAGMA user_version = 9")
        #expect(try store.key(for: key.item.keyID).key == key.key)

        // Another master key's verifier written in place.
        let other = TemporaryDirectory()
        _ = try DeviceKeyStore(directory: other.store, masterKey: .bytes(.random()), create: true)
        let foreign = try RawDatabase(other.database).column("SELECT value FROM meta WHERE name = 'verifier'")[0]
        for _ in 0..<3 { #expect(try store.key(for: key.item.keyID).key == key.key) }
        let hex = foreign.map { String(format: "%02x", $0) }.joined()
        try RawDatabase(dir.database).execute("UPDATE meta SET value = X'\(hex)' WHERE name = 'verifier'")
        let error = storeError { try store.key(for: key.item.keyID) }
        #expect(error?.lockedReason?.contains("re-created with another master key") == true, "\(String(describing: error))")
    }

    @Test func noFileLockIsHeldBetweenCalls() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let key = try store.asDirectory.rotate(conversation: "c")
        _ = try store.key(for: key.item.keyID)
        #expect(try !store.recordDelivery(conversation: "c", messageID: "m"))
        _ = try store.items()
        // Another connection gets the exclusive lock at once (no waiting): the kept connection
        // holds no SHARED or RESERVED lock and no open read transaction.
        let raw = try RawDatabase(dir.database)
        try raw.execute("PRAGMA busy_timeout = 0")
        try raw.execute("BEGIN EXCLUSIVE")
        try raw.execute("COMMIT")
    }

    #if os(Linux)
    /// The descriptors of this process open on `path`.
    private func descriptors(on path: String) throws -> Int {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry)) == target
        }.count
    }

    @Test func anInstanceKeepsOneDescriptorOpenUntilItGoes() throws {
        let dir = TemporaryDirectory()
        var store: DeviceKeyStore? = try makeStore(dir)
        let key = try store!.asDirectory.rotate(conversation: "c")
        for message in 0..<50 {
            _ = try store!.key(for: key.item.keyID)
            _ = try store!.recordDelivery(conversation: "c", messageID: "m\(message)")
        }
        #expect(try descriptors(on: dir.database) == 1)
        store = nil
        #expect(try descriptors(on: dir.database) == 0)
    }

    @Test func aFileSwitchedToWALUnderneathIsNotKeptOpen() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let key = try store.asDirectory.rotate(conversation: "c")
        do {
            let raw = try RawDatabase(dir.database)
            try raw.execute("PRAGMA journal_mode = WAL")
        }
        #expect(try store.key(for: key.item.keyID).key == key.key)
        // A WAL connection would hold a lock on the -shm file for as long as it stays open.
        #expect(try descriptors(on: dir.database + "-shm") == 0)
        #expect(try descriptors(on: dir.database) == 0)
        #expect(try store.key(for: key.item.keyID).key == key.key)
    }
    #endif

    @Test func callsFromManyThreadsShareTheConnection() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let keys = try (0..<8).map { try store.asDirectory.rotate(conversation: "c\($0)") }
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for message in 0..<40 {
                do {
                    let key = keys[(thread + message) % keys.count]
                    guard try store.key(for: key.item.keyID).key == key.key,
                          try !store.recordDelivery(conversation: "c\(thread)", messageID: "m\(message)")
                    else { failures.add(1, ordering: .relaxed); continue }
                } catch {
                    failures.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(try store.deliveryCount() == 8 * 40)
    }
}

import Dispatch
import PushSealCore
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Testing

/// Another connection (as another process would) holding SQLite locks: store calls wait for the
/// lock (busy timeout) instead of failing with SQLITE_BUSY.
@Suite("Locking")
struct LockingTests {
    private func release(_ raw: RawDatabase, afterMilliseconds delay: Int) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) {
            try? raw.execute("COMMIT")
            done.signal()
        }
        return done
    }

    @Test func aWriteWaitsForAnotherWritersLock() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let raw = try RawDatabase(dir.database)
        try raw.execute("BEGIN IMMEDIATE")
        try raw.execute("DELETE FROM epoch_marks")
        let done = release(raw, afterMilliseconds: 300)
        let key = ConversationKey.generate()
        try store.add(key, conversation: "c", epoch: 1)
        #expect(try !store.recordDelivery(conversation: "c", messageID: "m"))
        done.wait()
        #expect(try store.key(for: key.id).key == key)
    }

    @Test func aReadWaitsForAnExclusiveLock() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let key = try store.asDirectory.rotate(conversation: "c")
        let raw = try RawDatabase(dir.database)
        try raw.execute("BEGIN EXCLUSIVE")
        let done = release(raw, afterMilliseconds: 300)
        #expect(try store.key(for: key.item.keyID).key == key.key)
        guard case .found = DeviceKeyStore.lookup(key.item.keyID, directory: dir.store, masterKey: .keyFile(path: dir.keyFile)) else {
            Issue.record("lookup")
            return
        }
        done.wait()
    }

    @Test func opensAndCreationWaitForLocksToo() throws {
        let dir = TemporaryDirectory()
        _ = try makeStore(dir)
        let raw = try RawDatabase(dir.database)
        try raw.execute("BEGIN EXCLUSIVE")
        let done = release(raw, afterMilliseconds: 300)
        _ = try makeStore(dir)
        done.wait()
    }
}

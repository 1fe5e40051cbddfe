import PushSealCore
import PushSealKeyDirectory
import PushSealProvider
import PushSealKeyDirectoryPostgreSQL
import Testing
import PushSealPlatform

/// The provider's cache of current keys: time to live, invalidation, and LISTEN/NOTIFY across
/// connections and processes.
extension PostgreSQLTests {
@Suite("provider cache")
struct CacheTests {
    /// Polls `condition` every 5 ms for up to `seconds`.
    static func eventually(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        var waited = 0.0
        while waited < seconds {
            if try condition() { return true }
            usleep(5000)
            waited += 0.005
        }
        return try condition()
    }

    @Test func entriesLiveTheirTimeToLiveAndInvalidationDropsThem() throws {
        let uri = try TestServer.freshSchemaURI()
        let master = TestServer.masterKey()
        let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master), create: true)
        let writer = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master))
        let first = try writer.rotate(conversation: "c").key
        let time = MonotonicFake()
        let cache = CachingKeyProvider(directory: directory, timeToLive: 5, now: { time.value })
        #expect(try cache.currentKey(conversation: "c") == first)
        let second = try writer.rotate(conversation: "c").key
        // No invalidation: the cached key stays until its time to live has passed, never longer.
        time.value = 4.9
        #expect(try cache.currentKey(conversation: "c") == first)
        time.value = 5.0
        #expect(try cache.currentKey(conversation: "c") == second)
        let third = try writer.rotate(conversation: "c").key
        cache.invalidate(conversation: "c")
        #expect(cache.count == 0)
        #expect(try cache.currentKey(conversation: "c") == third)
        cache.invalidateAll()
        #expect(cache.count == 0)
        // A directory error is thrown as it is, and nothing is cached.
        #expect(throws: KeyDirectoryError.itemNotFound) { try cache.currentKey(conversation: "nobody") }
        #expect(cache.count == 0)
        #expect(try cache.currentKey(conversation: "c") == third)
        #expect(cache.count == 1)
    }

    /// Conversation ids are bytes: "é" precomposed (U+00E9) and decomposed (e + U+0301) are equal
    /// Swift strings but two conversations with two keys; the cache never answers one with the
    /// other's key.
    @Test func canonicallyEquivalentIdsAreDifferentConversationsInTheCache() throws {
        let uri = try TestServer.freshSchemaURI()
        let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(TestServer.masterKey()), create: true)
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed && Array(composed.utf8) != Array(decomposed.utf8))
        let composedKey = try directory.rotate(conversation: composed).key
        let decomposedKey = try directory.rotate(conversation: decomposed).key
        #expect(composedKey != decomposedKey)
        let cache = CachingKeyProvider(directory: directory)
        #expect(try cache.currentKey(conversation: composed) == composedKey)
        #expect(try cache.currentKey(conversation: decomposed) == decomposedKey)
        #expect(try cache.currentKey(conversation: composed) == composedKey)
        #expect(cache.count == 2)
        cache.invalidate(conversation: decomposed)
        #expect(cache.count == 1)
        #expect(try cache.currentKey(conversation: composed) == composedKey)
    }

    /// Issue 24 item 5, the one-conversation rollback on the server: the operator saves
    /// conversation c's rows and epoch record before a rotation and puts them back afterwards.
    /// The directory cannot tell (it is self-consistent); the node's cache, which already handed
    /// out epoch 2, refuses epoch 1 with `rolledBack` (before: it served epoch 1, the removed
    /// member's key). A fresh cache cannot tell either.
    @Test func aConversationRolledBackOnTheServerIsRolledBackForANodeThatUsedTheNewerEpoch() throws {
        let uri = try TestServer.freshSchemaURI()
        let master = TestServer.masterKey()
        let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master), create: true)
        let first = try directory.rotate(conversation: "c").key
        try TestServer.psql(uri, "CREATE TABLE saved_keys AS SELECT * FROM pushseal_keys WHERE conversation = 'c'")
        try TestServer.psql(uri, "CREATE TABLE saved_epochs AS SELECT * FROM pushseal_epochs WHERE conversation = 'c'")
        let second = try directory.rotate(conversation: "c").key
        let time = MonotonicFake()
        let cache = CachingKeyProvider(directory: directory, timeToLive: 5, now: { time.value })
        #expect(try cache.currentKey(conversation: "c") == second)

        try TestServer.psql(uri, """
            BEGIN; DELETE FROM pushseal_keys WHERE conversation = 'c'; DELETE FROM pushseal_epochs WHERE conversation = 'c';
            INSERT INTO pushseal_keys SELECT * FROM saved_keys; INSERT INTO pushseal_epochs SELECT * FROM saved_epochs; COMMIT
            """)
        #expect(try directory.currentKey(conversation: "c").key == first, "the server alone cannot tell")
        cache.invalidate(conversation: "c")
        #expect(throws: KeyDirectoryError.rolledBack(conversation: "c", epoch: 1, highWater: 2)) { try cache.currentKey(conversation: "c") }
        time.value = 100
        #expect(throws: KeyDirectoryError.rolledBack(conversation: "c", epoch: 1, highWater: 2)) { try cache.currentKey(conversation: "c") }
        #expect(cache.count == 0, "nothing cached under the rolled-back epoch")
        // The rolled-back server gives epoch 2 out again, with another key: refused too.
        let reissued = try directory.rotate(conversation: "c")
        #expect(reissued.item.epoch == 2 && reissued.key != second)
        #expect(throws: KeyDirectoryError.rolledBack(conversation: "c", epoch: 2, highWater: 2)) { try cache.currentKey(conversation: "c") }
        // Only an epoch above the one this node used is taken.
        let next = try directory.rotate(conversation: "c")
        #expect(try cache.currentKey(conversation: "c") == next.key)
    }

    /// The read-through provider (no cache): a rotation committed on another connection is used
    /// from the next lookup on, and a conversation rolled back on the server after this provider
    /// handed out its newer epoch is refused with `rolledBack`, as by the cache.
    @Test func theDirectoryProviderReadsThroughAndRefusesARolledBackConversation() throws {
        let uri = try TestServer.freshSchemaURI()
        let master = TestServer.masterKey()
        let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master), create: true)
        let writer = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master))
        let provider = DirectoryKeyProvider(directory: directory)
        #expect(throws: KeyDirectoryError.itemNotFound) { try provider.currentKey(conversation: "c") }
        let first = try writer.rotate(conversation: "c").key
        #expect(try provider.currentKey(conversation: "c") == first)
        try TestServer.psql(uri, "CREATE TABLE saved_keys AS SELECT * FROM pushseal_keys WHERE conversation = 'c'")
        try TestServer.psql(uri, "CREATE TABLE saved_epochs AS SELECT * FROM pushseal_epochs WHERE conversation = 'c'")
        let second = try writer.rotate(conversation: "c").key
        #expect(try provider.currentKey(conversation: "c") == second, "the next lookup reads the rotation")

        try TestServer.psql(uri, """
            BEGIN; DELETE FROM pushseal_keys WHERE conversation = 'c'; DELETE FROM pushseal_epochs WHERE conversation = 'c';
            INSERT INTO pushseal_keys SELECT * FROM saved_keys; INSERT INTO pushseal_epochs SELECT * FROM saved_epochs; COMMIT
            """)
        #expect(try directory.currentKey(conversation: "c").key == first, "the server alone cannot tell")
        #expect(throws: KeyDirectoryError.rolledBack(conversation: "c", epoch: 1, highWater: 2)) { try provider.currentKey(conversation: "c") }
        let reissued = try writer.rotate(conversation: "c")
        #expect(reissued.item.epoch == 2 && reissued.key != second)
        #expect(throws: KeyDirectoryError.rolledBack(conversation: "c", epoch: 2, highWater: 2)) { try provider.currentKey(conversation: "c") }
        let next = try writer.rotate(conversation: "c")
        #expect(try provider.currentKey(conversation: "c") == next.key)
    }

    @Test func aRotationOnAnotherConnectionIsUsedAfterItsNotification() throws {
        let uri = try TestServer.freshSchemaURI()
        let master = TestServer.masterKey()
        let writer = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master), create: true)
        try writer.rotate(conversation: "c")
        // A time to live far beyond the wait below: only the notification can move the cache.
        let provider = try PostgreSQLKeyProvider(directory: try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master)), timeToLive: 3600)
        defer { provider.stop() }
        #expect(provider.listener.isListening)
        for _ in 0..<5 {
            let before = try provider.currentKey(conversation: "c")
            let rotated = try writer.rotate(conversation: "c").key
            #expect(before != rotated)
            #expect(try Self.eventually(5) { try provider.currentKey(conversation: "c") == rotated })
        }
    }

    @Test func aRotationInAnotherProcessReachesAWatchingProcess() throws {
        let uri = try TestServer.freshSchemaURI()
        let master = TestServer.masterKey()
        let writer = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master), create: true)
        try writer.rotate(conversation: "c")
        let watcher = try ChildProcess(
            TestServer.workerPath, ["watch", "--uri", uri, "--key-hex", TestServer.hex(master), "--conversation", "c", "--ttl", "3600"])
        defer {
            watcher.kill(SIGKILL)
            watcher.wait()
        }
        let ready = watcher.readLine() ?? ""
        #expect(ready.hasPrefix("ready "), "\(ready)")
        for _ in 0..<3 {
            let rotated = try writer.rotate(conversation: "c")
            #expect(watcher.readLine() == "kid \(rotated.item.keyID)")
        }
    }
}
}

final class MonotonicFake: @unchecked Sendable {
    private let lock = Lock()
    private var current = 0.0
    var value: Double {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }
}

import PushSealCore
import PushSealKeyDirectory
import PushSealKeyDirectoryPostgreSQL
import Testing

/// The PostgreSQL key directory's model: the SQLite store's behaviour, through the same
/// `KeyDirectory` protocol, against the throwaway cluster (each test in a schema of its own).
extension PostgreSQLTests {
@Suite("model and guarantees")
struct DirectoryAPITests {
    struct Fixture {
        let uri: String
        let master = TestServer.masterKey()
        let directory: PostgreSQLKeyDirectory

        init(clock: @escaping SecondsClock = systemClock) throws {
            uri = try TestServer.freshSchemaURI()
            directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master), create: true, clock: clock)
        }

        func reopen() throws -> PostgreSQLKeyDirectory {
            try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master))
        }
    }

    @Test func createsTheSchemaOnceAndReopensWithoutCreating() throws {
        let f = try Fixture()
        #expect(f.directory.createdSchema)
        let again = try f.reopen()
        #expect(!again.createdSchema)
        #expect(try TestServer.psql(f.uri, "SELECT version FROM pushseal_schema_version") == "3")
    }

    @Test func aDatabaseWithoutTheTablesIsNotFoundWithoutCreate() throws {
        let uri = try TestServer.freshSchemaURI()
        guard case .storeNotFound? = directoryError({ _ = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(TestServer.masterKey())) }) else {
            Issue.record("expected storeNotFound")
            return
        }
        // Nothing was created.
        #expect(try TestServer.psql(uri, "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'pushseal_%' AND schemaname = current_schema()") == "0")
    }

    @Test func aWrongMasterKeyIsLockedAtInit() throws {
        let f = try Fixture()
        guard case let .locked(why)? = directoryError({ _ = try PostgreSQLKeyDirectory(uri: f.uri, masterKey: .bytes(TestServer.masterKey())) }) else {
            Issue.record("expected locked")
            return
        }
        #expect(why.hasPrefix("wrong master key"))
    }

    @Test func aNewerSchemaVersionIsRefusedAndLeftAlone() throws {
        let f = try Fixture()
        try TestServer.psql(f.uri, "UPDATE pushseal_schema_version SET version = 7")
        #expect(directoryError({ _ = try f.reopen() }) == .unsupportedFileVersion(found: 7, supported: PostgreSQLKeyDirectory.supportedSchemaVersion))
        #expect(try TestServer.psql(f.uri, "SELECT version FROM pushseal_schema_version") == "7")
    }

    @Test func addRotateCurrentLookupListPurgeWithGracePeriods() throws {
        let now = Clock(1_000_000)
        let f = try Fixture(clock: { now.value })
        let directory: any KeyDirectory = f.directory
        let first = ConversationKey.generate()
        let item = try directory.add(first, conversation: "alice", epoch: nil, label: "first", notAfter: nil)
        #expect(item.epoch == 1 && item.label == "first")
        #expect(try directory.currentKey(conversation: "alice").key == first)
        #expect(directoryError({ try directory.add(first, conversation: "alice", epoch: nil, label: nil, notAfter: nil) }) == .duplicateItem)
        #expect(directoryError({ try directory.add(.generate(), conversation: "alice", epoch: 1, label: nil, notAfter: nil) }) == .duplicateItem)

        let rotated = try directory.rotate(conversation: "alice", label: nil, key: nil)
        #expect(rotated.item.epoch == 2)
        #expect(try directory.currentKey(conversation: "alice").key == rotated.key)
        // The retired epoch stays readable by key id through its grace period; its not-after (the
        // retire-by time receivers enforce) is the rotation time.
        let old = try directory.key(for: first.id)
        #expect(old.key == first && old.item.notAfter == 1_000_000)
        #expect(try directory.items(conversation: "alice").map(\.epoch) == [1, 2])

        try directory.add(.generate(), conversation: "bob", epoch: 5, label: nil, notAfter: nil)
        #expect(try directory.items(conversation: nil).map(\.conversation) == ["alice", "alice", "bob"])

        now.value = 1_000_100
        #expect(try directory.purgeExpired(gracePeriod: 100) == 0)
        now.value = 1_000_101
        #expect(try directory.purgeExpired(gracePeriod: 100) == 1)
        #expect(directoryError({ _ = try directory.key(for: first.id) }) == .itemNotFound)

        try directory.remove(keyID: rotated.key.id)
        #expect(directoryError({ try directory.remove(keyID: rotated.key.id) }) == .itemNotFound)
        #expect(directoryError({ _ = try directory.currentKey(conversation: "alice") }) == .itemNotFound)
        #expect(try directory.removeConversation("bob") == 1)
        #expect(try directory.items(conversation: nil).isEmpty)
    }

    @Test func aRetiredNewestKeyIsNotCurrentAndNoOlderEpochTakesItsPlace() throws {
        let now = Clock(500)
        let f = try Fixture(clock: { now.value })
        let live = ConversationKey.generate(), expiring = ConversationKey.generate()
        try f.directory.add(live, conversation: "c", epoch: 1)
        try f.directory.add(expiring, conversation: "c", epoch: 2, notAfter: 600)
        #expect(try f.directory.currentKey(conversation: "c").key == expiring)
        now.value = 601
        // Epoch 1 is live but older: a member removed by the rotation to epoch 2 may hold it.
        #expect(directoryError({ _ = try f.directory.currentKey(conversation: "c") }) == .itemNotFound)
    }

    /// Issue 24 item 4: the rotation retires every earlier live epoch, a key with a lifetime too
    /// (`min(not-after, now)`); before, only rows with `not_after IS NULL` were touched and a
    /// 90-day key stayed live for the removed member.
    @Test func rotationRetiresAKeyWithALifetimeToo() throws {
        let now = Clock(1_000_000)
        let f = try Fixture(clock: { now.value })
        let lifetime = try f.directory.add(.generate(), conversation: "c", epoch: nil, label: nil, notAfter: 1_000_000 + 90 * 86_400)
        let ended = try f.directory.add(.generate(), conversation: "c", epoch: nil, label: nil, notAfter: 999_000)
        now.value = 1_086_400
        let rotated = try f.directory.rotate(conversation: "c", label: nil, key: nil)
        #expect(try f.directory.key(for: lifetime.keyID).item.notAfter == 1_086_400, "retired at the rotation")
        #expect(try f.directory.key(for: ended.keyID).item.notAfter == 999_000, "an earlier not-after stays")
        now.value = 1_086_400 + 30 * 86_400
        #expect(try f.directory.key(for: lifetime.keyID).item.isLive(at: now.value) == false)
        #expect(try f.directory.currentKey(conversation: "c").key == rotated.key)
    }

    /// Issue 24 item 6: master-key rotation on PostgreSQL, in one transaction. Every key and epoch
    /// record opens under the new key only; this node and another still on the old key stop
    /// (`locked`) instead of writing rows the new key cannot open; a row that does not unseal
    /// aborts the rotation and nothing changes.
    @Test func masterKeyRotationResealsEverythingInOneTransaction() throws {
        let f = try Fixture()
        let first = try f.directory.rotate(conversation: "a", label: nil, key: nil)
        let second = try f.directory.rotate(conversation: "a", label: nil, key: nil)
        let other = try f.directory.rotate(conversation: "b", label: nil, key: nil)
        let node2 = try PostgreSQLKeyDirectory(uri: f.uri, masterKey: .bytes(f.master))
        let newKey = TestServer.masterKey()

        // A tampered row aborts it: nothing changed, the old key still opens everything.
        try TestServer.psql(f.uri, "UPDATE pushseal_keys SET label = 'x' WHERE kid = '\\x\(TestServer.hex(other.key.id.bytes))'::bytea")
        #expect(directoryError({ _ = try f.directory.rotateMasterKey(to: .bytes(newKey)) }) == .corruptedItem(other.key.id))
        #expect(try f.directory.key(for: first.key.id).key == first.key)
        try TestServer.psql(f.uri, "UPDATE pushseal_keys SET label = NULL WHERE kid = '\\x\(TestServer.hex(other.key.id.bytes))'::bytea")

        let rotation = try f.directory.rotateMasterKey(to: .bytes(newKey))
        #expect(rotation == MasterKeyRotation(resealedKeys: 3, resealedIdentities: 0, clearedDeliveries: 0))
        // The old key no longer opens the directory; the new one opens every key and record.
        guard case .locked? = directoryError({ _ = try PostgreSQLKeyDirectory(uri: f.uri, masterKey: .bytes(f.master)) }) else {
            Issue.record("the old master key still opens the directory")
            return
        }
        let reopened = try PostgreSQLKeyDirectory(uri: f.uri, masterKey: .bytes(newKey))
        #expect(try reopened.key(for: first.key.id).key == first.key)
        #expect(try reopened.currentKey(conversation: "a").key == second.key)
        #expect(try reopened.rotate(conversation: "b", label: nil, key: nil).item.epoch == 2)
        // Nodes still on the old key stop, reads and writes alike.
        for stale in [f.directory, node2] {
            guard case .locked? = directoryError({ _ = try stale.rotate(conversation: "a", label: nil, key: nil) }),
                  case .locked? = directoryError({ _ = try stale.key(for: first.key.id) }),
                  case .locked? = directoryError({ _ = try stale.currentKey(conversation: "a") })
            else { Issue.record("a node on the old master key went on"); return }
        }
        #expect(try reopened.items(conversation: "a").map(\.epoch) == [1, 2], "nothing was written under the old key")
        #expect(directoryError({ _ = try reopened.rotateMasterKey(to: .bytes(newKey)) }) == .invalidArgument("the new master key is the current one"))
    }

    @Test func invalidArgumentsAreRefusedBeforeTheServer() throws {
        let f = try Fixture()
        #expect(directoryError({ _ = try f.directory.currentKey(conversation: "") }) == .invalidArgument("a conversation id must be 1 to 256 UTF-8 bytes, not 0"))
        guard case .invalidArgument? = directoryError({ try f.directory.add(.generate(), conversation: "c", epoch: -1) }) else {
            Issue.record("negative epoch")
            return
        }
        // The one identifier rule: no key filed under an id no notification can carry.
        let control = KeyDirectoryError.invalidArgument("a conversation id must not contain a control character U+0000–U+001F")
        #expect(directoryError({ try f.directory.add(.generate(), conversation: "a\nb", epoch: 1) }) == control)
        #expect(directoryError({ _ = try f.directory.rotate(conversation: "a\u{0}") }) == control)
        #expect(try f.directory.items(conversation: "a\nb").isEmpty)
        guard case .invalidArgument? = directoryError({ try f.directory.purgeExpired(gracePeriod: -1) }) else {
            Issue.record("negative grace period")
            return
        }
    }

    @Test func rotationsFromManyConnectionsGetConsecutiveEpochs() async throws {
        let f = try Fixture()
        let instances = try (0..<6).map { _ in try f.reopen() }
        try await withThrowingTaskGroup(of: [Int64].self) { group in
            for directory in instances {
                group.addTask {
                    var epochs: [Int64] = []
                    for _ in 0..<10 { epochs.append(try directory.rotate(conversation: "shared").item.epoch) }
                    return epochs
                }
            }
            var all: [Int64] = []
            for try await epochs in group { all += epochs }
            #expect(all.sorted() == Array(1...60))
        }
        let items = try f.directory.items(conversation: "shared")
        #expect(items.map(\.epoch) == Array(1...60))
        #expect(items.filter { $0.notAfter == nil }.map(\.epoch) == [60])
    }
}
}

/// A settable clock for tests.
final class Clock: @unchecked Sendable {
    private let lock = Lock()
    private var current: Int64
    init(_ value: Int64) { current = value }
    var value: Int64 {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }
}

import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import Testing

/// `DeviceKeyStore.recordDelivery(…directory:masterKey:…)` (one connection) must behave exactly like
/// opening the store and calling `recordDelivery` on it.
@Suite("Key store: delivery recorded in one transaction")
struct OneTransactionDeliveryTests {
    static func twoStep(_ dir: TemporaryDirectory, _ cid: String, _ mid: String, retention: Int64? = nil, key: MasterKeySource? = nil,
                        clock: ManualClock) throws -> Bool {
        let store = try DeviceKeyStore(directory: dir.store, masterKey: key ?? .keyFile(path: dir.keyFile), clock: clock.clock)
        return try store.recordDelivery(conversation: cid, messageID: mid, pruningOlderThan: retention)
    }

    static func oneStep(_ dir: TemporaryDirectory, _ cid: String, _ mid: String, retention: Int64? = nil, key: MasterKeySource? = nil,
                        clock: ManualClock) throws -> Bool {
        try DeviceKeyStore.recordDelivery(
            conversation: cid, messageID: mid, pruningOlderThan: retention, directory: dir.store,
            masterKey: key ?? .keyFile(path: dir.keyFile), clock: clock.clock)
    }

    @Test func recordsAndPrunesLikeTheTwoStepPath() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock(1_000)
        _ = try makeStore(dir, clock: clock)
        #expect(try Self.oneStep(dir, "c1", "m1", clock: clock) == false)
        #expect(try Self.oneStep(dir, "c1", "m1", clock: clock) == true)
        #expect(try Self.twoStep(dir, "c1", "m1", clock: clock) == true, "both paths write the same tag")
        #expect(try Self.twoStep(dir, "c1", "m2", clock: clock) == false)
        #expect(try Self.oneStep(dir, "c1", "m2", clock: clock) == true)
        clock.advance(100)
        // Pruning in the same transaction: entries older than 50 s are gone, so m1 is new again.
        #expect(try Self.oneStep(dir, "c1", "m3", retention: 50, clock: clock) == false)
        #expect(try reopen(dir, clock: clock).deliveryCount() == 1)
        #expect(try Self.oneStep(dir, "c1", "m1", retention: 50, clock: clock) == false)
        #expect(try reopen(dir, clock: clock).hasDelivery(conversation: "c1", messageID: "m3"))
    }

    @Test func failuresAreReportedExactlyAsByOpeningTheStore() throws {
        let clock = ManualClock(1_000)
        let dir = TemporaryDirectory()
        _ = try makeStore(dir, clock: clock)
        let cases: [(String, TemporaryDirectory, MasterKeySource?, Int64?)] = [
            ("wrong master key", dir, .bytes(SecretKey.random()), nil),
            ("missing key file", dir, .keyFile(path: dir.file("absent.key")), nil),
            ("negative retention", dir, nil, -1),
            ("no store", TemporaryDirectory(), nil, nil),
        ]
        for (name, directory, key, retention) in cases {
            let one = storeError { try Self.oneStep(directory, "c", "m", retention: retention, key: key, clock: clock) }
            let two = storeError { try Self.twoStep(directory, "c", "m", retention: retention, key: key, clock: clock) }
            #expect(one != nil, "\(name)")
            #expect(one == two, "\(name)")
        }
        #expect(try reopen(dir, clock: clock).deliveryCount() == 0, "nothing was recorded")
    }

    @Test func fileStatesTheOpeningPathDecides() throws {
        let clock = ManualClock(1_000)
        // An empty (never initialized) file, and a file of a newer format.
        let empty = TemporaryDirectory()
        _ = try makeStore(empty, clock: clock)
        try RawDatabase(empty.database).execute("PRAGMA user_version = 0; PRAGMA application_id = 0; DROP TABLE meta; DROP TABLE keys")
        let newer = TemporaryDirectory()
        _ = try makeStore(newer, clock: clock)
        try RawDatabase(newer.database).execute("PRAGMA user_version = 99")
        for directory in [empty, newer] {
            let one = storeError { try Self.oneStep(directory, "c", "m", clock: clock) }
            let two = storeError { try Self.twoStep(directory, "c", "m", clock: clock) }
            #expect(one != nil)
            #expect(one == two)
        }
    }
}

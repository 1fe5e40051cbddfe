import Foundation
import PushSealCore
import PushSealKeyDirectory
@testable import PushSealKeyStore
import PushSealPlatform
import Testing

/// The duplicate log's own file `pushseal-deliveries` (Docs/KEY-STORE.md §2.1, §4): the hash
/// table, its rebuilds, damage, replacement, another master key's log, the format 8 → 9
/// migration, and the resets of a master-key rotation and a logout.
@Suite("Duplicate log file", .serialized)
struct DeliveryLogFileTests {
    /// The size of a log of `slots` slots: a 128-byte header, then 128 bytes a slot.
    private func size(slots: Int) -> Int { 128 + 128 * slots }

    private func fileSize(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.size] as! NSNumber).intValue
    }

    private func bytes(_ path: String) throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) }

    private func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, 0o600) == 0)
    }

    private func masterKey(_ dir: TemporaryDirectory) throws -> MasterKey {
        MasterKey(SecretKey(bytes: try Data(contentsOf: URL(fileURLWithPath: dir.keyFile))))
    }

    /// A distinct tag (`n`) whose first 8 bytes are `home`: its home slot is `home mod slots`.
    private func tag(home: UInt64, _ n: UInt32) -> [UInt8] {
        withUnsafeBytes(of: home.bigEndian) { Array($0) } + withUnsafeBytes(of: n.bigEndian) { Array($0) } + [UInt8](repeating: 0xA5, count: 20)
    }

    private func bareLog(_ dir: TemporaryDirectory) -> DeliveryLogFile {
        #expect(mkdir(dir.store, 0o700) == 0 || errno == EEXIST)
        return DeliveryLogFile(directory: dir.store, logKey: SecretKey(bytes: [UInt8](repeating: 7, count: 32)))
    }

    @Test func collidingTagsProbeAcrossTheEndOfTheTableAndSurviveARebuild() throws {
        let dir = TemporaryDirectory()
        let log = bareLog(dir)
        // 128 tags whose home is the last slot (255 of 256, 1023 of 1024): each probe wraps.
        let tags = (0..<129).map { tag(home: .max, UInt32($0)) }
        for tag in tags.prefix(128) {
            #expect(try log.mark(tag: tag, envelopeTag: nil, now: 1_000, retention: nil, confirmCurrent: {}) == .first)
        }
        // Half full: no rebuild yet; linear probing put them at 255, 0, 1, …, 126.
        #expect(try fileSize(dir.deliveryLog) == size(slots: 256))
        let raw = try bytes(dir.deliveryLog)
        for (order, slot) in ([255] + Array(0..<127)).enumerated() {
            let start = 128 + 128 * slot
            #expect(raw[start] == 1 && Array(raw[(start + 16)..<(start + 48)]) == tags[order], "slot \(slot)")
        }
        #expect(raw[128 + 128 * 127] == 0, "the slot after the cluster is empty")
        for tag in tags.prefix(128) {
            #expect(try log.contains(tag, confirmCurrent: {}))
            #expect(try log.mark(tag: tag, envelopeTag: nil, now: 2_000, retention: nil, confirmCurrent: {}) == .duplicate)
        }
        #expect(try !log.contains(tag(home: .max, 999), confirmCurrent: {}), "an absent tag's probe crosses the whole cluster")
        // The 129th record would fill more than half: rebuilt into 1024 slots first.
        #expect(try log.mark(tag: tags[128], envelopeTag: nil, now: 1_000, retention: nil, confirmCurrent: {}) == .first)
        #expect(try fileSize(dir.deliveryLog) == size(slots: 1024))
        for tag in tags { #expect(try log.mark(tag: tag, envelopeTag: nil, now: 3_000, retention: nil, confirmCurrent: {}) == .duplicate) }
        #expect(try log.count(confirmCurrent: {}) == 129)
        // Another instance (another process's view) reads the rebuilt file.
        let other = DeliveryLogFile(directory: dir.store, logKey: SecretKey(bytes: [UInt8](repeating: 7, count: 32)))
        #expect(try other.count(confirmCurrent: {}) == 129)
        #expect(!FileManager.default.fileExists(atPath: dir.store + "/pushseal-deliveries.rebuild"))
    }

    @Test func aStaleRebuildFileIsRemovedAndTheRebuildStillHappens() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let stale = dir.store + "/pushseal-deliveries.rebuild"
        try write([UInt8](repeating: 0xEE, count: 5000), to: stale)
        for message in 0..<129 { #expect(try !store.recordDelivery(conversation: "c", messageID: "m\(message)")) }
        #expect(try fileSize(dir.deliveryLog) == size(slots: 1024))
        #expect(!FileManager.default.fileExists(atPath: stale))
        for message in 0..<129 { #expect(try store.recordDelivery(conversation: "c", messageID: "m\(message)")) }
    }

    @Test func aTornSlotLosesOnlyItsOwnMark() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        for message in 0..<10 { _ = try store.recordDelivery(conversation: "c", messageID: "m\(message)") }
        var raw = try bytes(dir.deliveryLog)
        let slots = stride(from: 128, to: raw.count, by: 128).filter { raw[$0] == 1 }
        #expect(slots.count == 10)
        // Half a slot written (its end from before): the check no longer holds.
        for index in (slots[3] + 64)..<(slots[3] + 128) { raw[index] = 0 }
        // Garbage in an empty slot.
        let empty = stride(from: 128, to: raw.count, by: 128).first { raw[$0] == 0 }!
        for index in empty..<(empty + 128) { raw[index] = UInt8.random(in: 1...255) }
        try write(raw, to: dir.deliveryLog)
        let reopened = try reopen(dir)
        let found = try (0..<10).filter { try reopened.hasDelivery(conversation: "c", messageID: "m\($0)") }
        #expect(found.count == 9, "the torn slot's mark is lost, the others are kept")
        #expect(try reopened.deliveryCount() == 9)
        let lost = Set(0..<10).subtracting(found).first!
        #expect(try !reopened.recordDelivery(conversation: "c", messageID: "m\(lost)"))
        for message in 0..<10 { #expect(try reopened.recordDelivery(conversation: "c", messageID: "m\(message)")) }
    }

    @Test func aDamagedHeaderIsRebuiltFromTheSlotsAndAnUnreadableLogIsReset() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        for message in 0..<10 { _ = try store.recordDelivery(conversation: "c", messageID: "m\(message)") }
        var raw = try bytes(dir.deliveryLog)
        for index in 0..<128 { raw[index] = UInt8.random(in: 0...255) }
        try write(raw, to: dir.deliveryLog)
        // Reads take the slot count from the file's size; nothing recorded is reported new.
        #expect(try store.deliveryCount() == 10)
        for message in 0..<10 { #expect(try store.hasDelivery(conversation: "c", messageID: "m\(message)")) }
        // The first write rewrites the header (its own check holds again).
        for message in 0..<10 { #expect(try store.recordDelivery(conversation: "c", messageID: "m\(message)")) }
        let repaired = try bytes(dir.deliveryLog)
        #expect(Array(repaired[0..<4]) == Array("PSDL".utf8))
        #expect(Array(repaired[120..<128]) == Array(SHA256Digest.hash(Array(repaired[0..<120])).prefix(8)))

        // Garbage that is not a table's size: reset (every mark lost), never a crash.
        try write((0..<1000).map { _ in UInt8.random(in: 0...255) }, to: dir.deliveryLog)
        #expect(try store.deliveryCount() == 0)
        #expect(try !store.hasDelivery(conversation: "c", messageID: "m1"))
        #expect(try !store.recordDelivery(conversation: "c", messageID: "m1"))
        #expect(try fileSize(dir.deliveryLog) == size(slots: 256))
        #expect(try store.deliveryCount() == 1)
        // An empty file (a creator killed before it wrote the header) is initialized too.
        try write([], to: dir.deliveryLog)
        #expect(try !store.recordDelivery(conversation: "c", messageID: "m1"))
        #expect(try store.recordDelivery(conversation: "c", messageID: "m1"))
    }

    @Test func aLogReplacedByAnythingButThisUsersRegularFileIsRefused() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        _ = try store.recordDelivery(conversation: "c", messageID: "m")
        let saved = dir.file("saved-log")
        #expect(rename(dir.deliveryLog, saved) == 0)
        func refused(_ expected: String) throws {
            for attempt in [
                { () throws in _ = try store.recordDelivery(conversation: "c", messageID: "m") },
                { () throws in _ = try store.hasDelivery(conversation: "c", messageID: "m") },
                { () throws in _ = try store.deliveryCount() },
            ] {
                let error = storeError(attempt)
                let text: String? = switch error {
                case let .invalidStore(why)?, let .locked(why)?: why
                default: nil
                }
                #expect(text?.contains(expected) == true, "\(String(describing: error))")
            }
        }
        #expect(symlink(saved, dir.deliveryLog) == 0)
        try refused("is a symbolic link")
        #expect(storeError { try store.recordDelivery(conversation: "c", messageID: "m") }.map { if case .invalidStore = $0 { true } else { false } } == true)
        #expect(unlink(dir.deliveryLog) == 0)
        #expect(mkfifo(dir.deliveryLog, 0o600) == 0)
        try refused("not a regular file (it is a FIFO)")
        #expect(unlink(dir.deliveryLog) == 0)
        #expect(mkdir(dir.deliveryLog, 0o700) == 0)
        try refused("not a regular file")
        #expect(rmdir(dir.deliveryLog) == 0)
        if geteuid() == 0 {
            #expect(rename(saved, dir.deliveryLog) == 0)
            #expect(chown(dir.deliveryLog, 12_345, 12_345) == 0)
            try refused("owned by user 12345")
            #expect(chown(dir.deliveryLog, 0, 0) == 0)
            #expect(try store.recordDelivery(conversation: "c", messageID: "m"), "the store's own file again: the mark is there")
        } else {
            // Not root: a file of another owner cannot be made here; the store's own comes back.
            #expect(rename(saved, dir.deliveryLog) == 0)
            #expect(try store.recordDelivery(conversation: "c", messageID: "m"))
        }
    }

    @Test func aLogFromAnotherMasterKeyIsResetNeverTrusted() throws {
        let a = TemporaryDirectory(), b = TemporaryDirectory()
        let first = try makeStore(a)
        let second = try makeStore(b)
        for message in 0..<5 { _ = try first.recordDelivery(conversation: "c", messageID: "m\(message)") }
        let foreign = try bytes(a.deliveryLog)
        try write(foreign, to: b.deliveryLog)
        // Reads see it empty and leave it as it is; the first write resets it.
        #expect(try second.deliveryCount() == 0)
        #expect(try bytes(b.deliveryLog) == foreign)
        #expect(try !second.recordDelivery(conversation: "c", messageID: "m0"))
        #expect(try recordedTags(b.deliveryLog).count == 1)
        #expect(try second.deliveryCount() == 1)
    }

    /// A format-8 file: the `deliveries` table of format 8 with `rows`, the log file removed.
    private func makeFormat8(_ dir: TemporaryDirectory, rows: [(tag: [UInt8], seenAt: Int64, envelope: [UInt8]?)], removeLog: Bool) throws {
        if removeLog { #expect(unlink(dir.deliveryLog) == 0) }
        let raw = try RawDatabase(dir.database)
        try raw.execute("""
            CREATE TABLE deliveries (tag BLOB PRIMARY KEY NOT NULL CHECK (length(tag) = 32), seen_at INTEGER NOT NULL, envelope BLOB) WITHOUT ROWID;
            CREATE INDEX deliveries_by_time ON deliveries (seen_at);
            """)
        for row in rows {
            try raw.execute("INSERT INTO deliveries (tag, seen_at, envelope) VALUES (\(sqlBlob(row.tag)), \(row.seenAt), \(row.envelope.map(sqlBlob) ?? "NULL"))")
        }
        try raw.execute("PRAGMA user_version = 8")
    }

    @Test func aFormat8StoresDeliveriesMoveIntoTheLogAndTheTableIsDropped() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock(5_000)
        _ = try makeStore(dir, clock: clock)
        let logKey = ItemSealing.deliveryLogKey(masterKey: try masterKey(dir))
        let envelope: [UInt8] = Array("envelope one".utf8)
        let rows: [(tag: [UInt8], seenAt: Int64, envelope: [UInt8]?)] = [
            (ItemSealing.deliveryTag(conversation: "c", messageID: "m1", logKey: logKey), 4_000, ItemSealing.envelopeTag(envelope, logKey: logKey)),
            (ItemSealing.deliveryTag(conversation: "c", messageID: "m2", logKey: logKey), 4_500, nil),
        ]
        try makeFormat8(dir, rows: rows, removeLog: true)
        let store = try reopen(dir, clock: clock)
        let raw = try RawDatabase(dir.database)
        #expect(try raw.integer("PRAGMA user_version") == 9)
        #expect(try raw.integer("SELECT count(*) FROM sqlite_master WHERE name LIKE 'deliveries%'") == 0)
        #expect(try store.deliveryCount() == 2)
        #expect(try store.recordDelivery(conversation: "c", messageID: "m1", envelope: envelope) == .duplicate)
        #expect(try store.recordDelivery(conversation: "c", messageID: "m1", envelope: Array("another".utf8)) == .conflict)
        #expect(try store.recordDelivery(conversation: "c", messageID: "m2", envelope: envelope) == .duplicate)
        // Seen times moved too: pruning at 4_200 removes m1 (4_000), not m2 (4_500).
        clock.set(5_200)
        #expect(try store.pruneDeliveries(olderThan: 1_000) == 1)
        #expect(try store.hasDelivery(conversation: "c", messageID: "m2"))

        // A crash after the log write and before the commit leaves format 8 and the rows: the
        // migration runs again and inserts nothing twice.
        try makeFormat8(dir, rows: rows, removeLog: false)
        let again = try reopen(dir, clock: clock)
        #expect(try RawDatabase(dir.database).integer("PRAGMA user_version") == 9)
        #expect(try again.deliveryCount() == 2)
        #expect(try recordedTags(dir.deliveryLog).count == 2)
        #expect(try again.recordDelivery(conversation: "c", messageID: "m1", envelope: Array("another".utf8)) == .conflict)
    }

    @Test func masterKeyRotationLogoutAndDeviceWipeEmptyTheLog() throws {
        let dir = TemporaryDirectory()
        var store = try makeStore(dir)
        for message in 0..<3 { _ = try store.recordDelivery(conversation: "c", messageID: "m\(message)") }
        #expect(try store.removeAll() == 0)
        #expect(try recordedTags(dir.deliveryLog) == [])
        _ = try store.createDeviceKey()
        for message in 0..<3 { _ = try store.recordDelivery(conversation: "c", messageID: "m\(message)") }
        _ = try store.wipeDevice()
        #expect(try recordedTags(dir.deliveryLog) == [])
        #expect(try !store.recordDelivery(conversation: "c", messageID: "m0"))

        let newKey = dir.file("new.key")
        #expect(try store.rotateMasterKey(to: .keyFile(path: newKey, createIfMissing: true)).clearedDeliveries == 1)
        #expect(try recordedTags(dir.deliveryLog) == [])
        let newLogID = ItemSealing.deliveryLogID(logKey: ItemSealing.deliveryLogKey(masterKey: MasterKey(SecretKey(bytes: try Data(contentsOf: URL(fileURLWithPath: newKey))))))
        #expect(Array(try bytes(dir.deliveryLog)[40..<72]) == newLogID)
        store = try DeviceKeyStore(directory: dir.store, masterKey: .keyFile(path: newKey))
        #expect(try !store.recordDelivery(conversation: "c", messageID: "m0"))
    }

    @Test func aResetInterruptedAfterTheRotationsCommitIsDoneByTheNextOpen() throws {
        let dir = TemporaryDirectory()
        let old = try makeStore(dir)
        for message in 0..<4 { _ = try old.recordDelivery(conversation: "c", messageID: "m\(message)") }
        let before = try bytes(dir.deliveryLog)
        let newKey = dir.file("new.key")
        try old.rotateMasterKey(to: .keyFile(path: newKey, createIfMissing: true))
        // As if killed between the store's commit and the log's reset: the old key's log.
        try write(before, to: dir.deliveryLog)
        let store = try DeviceKeyStore(directory: dir.store, masterKey: .keyFile(path: newKey))
        #expect(try store.deliveryCount() == 0)
        #expect(try !store.hasDelivery(conversation: "c", messageID: "m0"))
        #expect(try !store.recordDelivery(conversation: "c", messageID: "m0"))
        #expect(try recordedTags(dir.deliveryLog).count == 1, "reset under the new key's id, then marked")
        // The instance of the old key neither marks nor resets the new key's log.
        #expect(storeError { try old.recordDelivery(conversation: "c", messageID: "m9") }?.lockedReason?.contains("another master key") == true)
        #expect(storeError { try old.deliveryCount() } != nil)
        #expect(try recordedTags(dir.deliveryLog).count == 1)
        #expect(try store.recordDelivery(conversation: "c", messageID: "m0"))
    }

    @Test func aStoreRemovedUnderneathIsReportedNotGivenANewLog() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        _ = try store.recordDelivery(conversation: "c", messageID: "m")
        #expect(unlink(dir.database) == 0 && unlink(dir.deliveryLog) == 0)
        #expect(storeError { try store.recordDelivery(conversation: "c", messageID: "m") } != nil)
        #expect(storeError { try store.hasDelivery(conversation: "c", messageID: "m") } != nil)
        #expect(!FileManager.default.fileExists(atPath: dir.deliveryLog))
    }

    @Test func fiveProcessesMarkWhileTheLogIsRebuiltUnderThem() throws {
        let dir = TemporaryDirectory()
        _ = try makeStore(dir)
        let go = dir.file("go")
        // Five markers of 300 pairs each and one of 1500: 4500 records in all, so the table is
        // rebuilt three times (256 → 1024 → 4096 → 16384 slots) while every process marks.
        let counts = [300, 300, 300, 300, 300, 1_500]
        var workers: [Worker] = []
        for (id, count) in counts.enumerated() {
            workers.append(try Worker(
                ["mark-many", "--dir", dir.store, "--key-file", dir.keyFile, "--id", "\(id)", "--count", "\(count)", "--go", go],
                outputPrefix: dir.file("worker\(id)")))
        }
        _ = FileManager.default.createFile(atPath: go, contents: Data())
        var newShared: [String] = []
        for (id, worker) in workers.enumerated() {
            #expect(worker.wait() == .exited(0), "worker \(id): \(worker.errorOutput)")
            #expect(worker.outputLines.last == "done", "worker \(id)")
            newShared += worker.outputLines.filter { $0.hasPrefix("new ") }
        }
        // No duplicate missed: each shared pair was new for exactly one process; nothing lost.
        #expect(newShared.sorted() == (0..<1_500).map { "new m\($0)" }.sorted())
        let store = try reopen(dir)
        #expect(try store.deliveryCount() == counts.reduce(0, +) + 1_500)
        for (id, count) in counts.enumerated() {
            for message in stride(from: 0, to: count, by: 37) {
                #expect(try store.hasDelivery(conversation: "w\(id)", messageID: "m\(message)"))
            }
        }
        #expect(try fileSize(dir.deliveryLog) == size(slots: 16_384))
    }
}

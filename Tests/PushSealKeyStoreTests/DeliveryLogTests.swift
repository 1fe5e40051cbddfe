import Dispatch
import PushSealCore
import PushSealKeyStore
import Synchronization
import Testing

@Suite("Duplicate log")
struct DeliveryLogTests {
    @Test func firstDeliveryIsNewTheSecondIsADuplicate() throws {
        let store = try makeStore(TemporaryDirectory())
        #expect(try store.recordDelivery(conversation: "c", messageID: "m1") == false)
        #expect(try store.recordDelivery(conversation: "c", messageID: "m1") == true)
        #expect(try store.recordDelivery(conversation: "c", messageID: "m2") == false)
        #expect(try store.recordDelivery(conversation: "d", messageID: "m1") == false)
        #expect(try store.hasDelivery(conversation: "c", messageID: "m2"))
        #expect(try !store.hasDelivery(conversation: "c", messageID: "m3"))
        #expect(try store.deliveryCount() == 3)
    }

    @Test func pairsAreLengthPrefixedSoConcatenationsDoNotCollide() throws {
        let store = try makeStore(TemporaryDirectory())
        #expect(try store.recordDelivery(conversation: "ab", messageID: "c") == false)
        #expect(try store.recordDelivery(conversation: "a", messageID: "bc") == false)
        #expect(try store.recordDelivery(conversation: "abc", messageID: "") == false)
    }

    @Test func theLogSurvivesReopening() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        _ = try store.recordDelivery(conversation: "c", messageID: "m")
        #expect(try reopen(dir).recordDelivery(conversation: "c", messageID: "m") == true)
    }

    @Test func idsAreNeverStoredInClear() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let cid = "conversation-\(UInt64.random(in: 0...UInt64.max))"
        let mid = "message-\(UInt64.random(in: 0...UInt64.max))"
        _ = try store.recordDelivery(conversation: cid, messageID: mid)
        #expect(try !fileContains(dir.database, Array(cid.utf8)))
        #expect(try !fileContains(dir.database, Array(mid.utf8)))
        #expect(try !fileContains(dir.deliveryLog, Array(cid.utf8)))
        #expect(try !fileContains(dir.deliveryLog, Array(mid.utf8)))
        let tags = try recordedTags(dir.deliveryLog)
        #expect(tags.count == 1 && tags[0].count == 32)
    }

    @Test func pruneRemovesEntriesOlderThanTheWindow() throws {
        let clock = ManualClock(1_000)
        let store = try makeStore(TemporaryDirectory(), clock: clock)
        _ = try store.recordDelivery(conversation: "c", messageID: "old")
        clock.set(2_000)
        _ = try store.recordDelivery(conversation: "c", messageID: "new")
        // A duplicate keeps its first recording time.
        clock.set(2_400)
        #expect(try store.recordDelivery(conversation: "c", messageID: "old") == true)
        clock.set(2_500)
        #expect(try store.pruneDeliveries(olderThan: 1_500) == 0)  // cutoff 1000: nothing strictly older
        #expect(try store.pruneDeliveries(olderThan: 1_000) == 1)  // cutoff 1500: "old"
        #expect(try store.deliveryCount() == 1)
        #expect(try store.recordDelivery(conversation: "c", messageID: "old") == false)
        #expect(try store.recordDelivery(conversation: "c", messageID: "new") == true)
        // "new" was recorded at 2000 (its duplicate did not move it), "old" again at 2500.
        #expect(try store.pruneDeliveries(olderThan: 0) == 1)
        clock.set(2_501)
        #expect(try store.pruneDeliveries(olderThan: .max) == 0)
        #expect(try store.pruneDeliveries(olderThan: 0) == 1)
        #expect(try store.deliveryCount() == 0)
    }

    @Test func checkAndRecordIsAtomicAcrossThreads() throws {
        let dir = TemporaryDirectory()
        _ = try makeStore(dir)
        let newCount = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { thread in
            do {
                // Separate instances, as separate processes would have.
                let store = try reopen(dir)
                for message in 0..<15 where try !store.recordDelivery(conversation: "c", messageID: "m\(message)") {
                    newCount.add(1, ordering: .relaxed)
                }
            } catch {
                failures.withLock { $0.append("\(thread): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(newCount.load(ordering: .relaxed) == 15)
        #expect(try reopen(dir).deliveryCount() == 15)
    }
}

import Dispatch
import Foundation
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Synchronization
import Testing

@Suite("Key store API")
struct KeyStoreAPITests {
    @Test func addThenGetReturnsTheSameKeyAndMetadata() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock(1_000)
        let store = try makeStore(dir, clock: clock)
        let key = ConversationKey.generate()
        let item = try store.add(key, conversation: "conv-1", epoch: 3, label: "phone", notAfter: 5_000)
        #expect(item == KeyItem(keyID: key.id, conversation: "conv-1", epoch: 3, label: "phone", createdAt: 1_000, notAfter: 5_000))

        let stored = try reopen(dir, clock: clock).key(for: key.id)
        #expect(stored.key == key)
        #expect(stored.item == item)
        #expect(try store.items() == [item])
    }

    @Test("without an epoch, add takes the conversation's next epoch, inside its own transaction")
    func addWithoutEpochTakesTheNextOne() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        #expect(try store.add(ConversationKey.generate(), conversation: "c").epoch == 1)
        try store.add(ConversationKey.generate(), conversation: "c", epoch: 7)
        #expect(try store.add(ConversationKey.generate(), conversation: "c").epoch == 8)
        #expect(try store.add(ConversationKey.generate(), conversation: "other").epoch == 1)
        // A duplicate key is refused whatever the epoch, and nothing changes.
        let key = ConversationKey.generate()
        try store.add(key, conversation: "d")
        #expect(storeError { try store.add(key, conversation: "d") } == .duplicateItem)
        #expect(try store.items(conversation: "d").map(\.epoch) == [1])

        // Several stores adding at once get distinct, consecutive epochs, none refused.
        let adders = 6
        let epochs = Mutex<[Int64]>([])
        DispatchQueue.concurrentPerform(iterations: adders) { _ in
            let own = try! reopen(dir)
            let item = try! own.add(ConversationKey.generate(), conversation: "busy")
            epochs.withLock { $0.append(item.epoch) }
        }
        #expect(epochs.withLock { $0.sorted() } == Array(1...Int64(adders)))
    }

    @Test func labelAndNotAfterAreOptional() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir, clock: ManualClock(7))
        let key = ConversationKey.generate()
        try store.add(key, conversation: "c", epoch: 0)
        let item = try store.key(for: key.id).item
        #expect(item.label == nil)
        #expect(item.notAfter == nil)
        #expect(item.createdAt == 7)
    }

    @Test func unknownKeyIsItemNotFound() throws {
        let store = try makeStore(TemporaryDirectory())
        #expect(storeError { try store.key(for: ConversationKey.generate().id) } == .itemNotFound)
        #expect(storeError { try store.asDirectory.currentKey(conversation: "nobody") } == .itemNotFound)
        #expect(storeError { try store.remove(keyID: ConversationKey.generate().id) } == .itemNotFound)
    }

    @Test func duplicatesAreRefused() throws {
        let store = try makeStore(TemporaryDirectory())
        let key = ConversationKey.generate()
        try store.add(key, conversation: "c", epoch: 1)
        // Same key id, other row (SPEC 3.4).
        #expect(storeError { try store.add(key, conversation: "d", epoch: 1) } == .duplicateItem)
        #expect(storeError { try store.add(key, conversation: "c", epoch: 2) } == .duplicateItem)
        // Same (conversation, epoch), other key.
        #expect(storeError { try store.add(ConversationKey.generate(), conversation: "c", epoch: 1) } == .duplicateItem)
        #expect(try store.items().count == 1)
    }

    @Test func invalidArgumentsAreRefused() throws {
        let store = try makeStore(TemporaryDirectory())
        let key = ConversationKey.generate()
        let tooLong = String(repeating: "x", count: 257)
        let calls: [() throws -> Void] = [
            { try store.add(key, conversation: "", epoch: 0) },
            { try store.add(key, conversation: tooLong, epoch: 0) },
            { try store.add(key, conversation: "c", epoch: -1) },
            { try store.purgeExpired(gracePeriod: -1) },
            { try store.asDirectory.rotate(conversation: "") },
            { try store.pruneDeliveries(olderThan: -1) },
            { _ = try store.asDirectory.currentKey(conversation: "") },
            { _ = try store.items(conversation: "") },
        ]
        for body in calls {
            let error = storeError(body)
            guard case .invalidArgument = error else {
                Issue.record("expected invalidArgument, got \(String(describing: error))")
                continue
            }
        }
        // 256 bytes is allowed (the content schema's cid limit).
        try store.add(key, conversation: String(repeating: "é", count: 128), epoch: 0)
        #expect(storeError { try DeviceKeyStore(directory: "", masterKey: .bytes(.random())) } == .invalidArgument("the store directory path is empty"))
    }

    /// The one identifier rule (SPEC §5.1) holds for the library as for `pushseal store add`: a
    /// conversation id with a C0 control character — which no notification can carry — files no
    /// key, by any of the paths that file one; lookups and removals under such an id still answer.
    @Test func aConversationIDWithAControlCharacterFilesNoKey() throws {
        let store = try makeStore(TemporaryDirectory())
        let directory = store.asDirectory
        let expected = KeyDirectoryError.invalidArgument("a conversation id must not contain a control character U+0000–U+001F")
        for id in ["a\u{0}b", "line\nbreak", "tab\there", "\u{1F}", "esc\u{1B}[31m"] {
            #expect(storeError { try store.add(.generate(), conversation: id, epoch: 1) } == expected, "add \(id.debugDescription)")
            #expect(storeError { _ = try directory.rotate(conversation: id) } == expected, "rotate \(id.debugDescription)")
            let items = [DeviceKeyStore.NewItem(key: .generate(), conversation: "fine", epoch: 1), DeviceKeyStore.NewItem(key: .generate(), conversation: id, epoch: 1)]
            #expect(storeError { try store.addAll(items) } == expected, "addAll \(id.debugDescription)")
            #expect(try store.items(conversation: id).isEmpty)
            #expect(try store.removeConversation(id) == 0)
            guard case .itemNotFound? = storeError({ _ = try directory.currentKey(conversation: id) }) else {
                Issue.record("currentKey(\(id.debugDescription)) should find nothing")
                continue
            }
        }
        #expect(try store.items().isEmpty, "nothing was filed, not even the valid item of a refused bulk add")
        // DEL (U+007F) and other non-C0 characters are content identifiers like any other.
        try store.add(.generate(), conversation: "del\u{7F}", epoch: 1)
        #expect(try store.items().map(\.conversation) == ["del\u{7F}"])
    }

    @Test func conversationsAreComparedByBytes() throws {
        let store = try makeStore(TemporaryDirectory())
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"  // canonically equivalent, different bytes
        let a = ConversationKey.generate(), b = ConversationKey.generate()
        try store.add(a, conversation: composed, epoch: 1)
        try store.add(b, conversation: decomposed, epoch: 1)  // not a duplicate
        #expect(try store.asDirectory.currentKey(conversation: composed).key == a)
        #expect(try store.asDirectory.currentKey(conversation: decomposed).key == b)
        #expect(try store.items(conversation: composed).map(\.keyID) == [a.id])
        #expect(try store.removeConversation(decomposed) == 1)
        #expect(try store.items().map(\.keyID) == [a.id])
    }

    @Test func itemsAreOrderedAndFiltered() throws {
        let store = try makeStore(TemporaryDirectory())
        let b2 = try store.add(.generate(), conversation: "b", epoch: 2)
        let a1 = try store.add(.generate(), conversation: "a", epoch: 1)
        let b1 = try store.add(.generate(), conversation: "b", epoch: 1)
        #expect(try store.items() == [a1, b1, b2])
        #expect(try store.items(conversation: "b") == [b1, b2])
        #expect(try store.items(conversation: "zzz") == [])
    }

    @Test func currentKeyIsTheNewestEpochWhileItIsLiveAndNeverAnOlderOne() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock(1_000)
        let store = try makeStore(dir, clock: clock)
        let e1 = ConversationKey.generate(), e2 = ConversationKey.generate(), e3 = ConversationKey.generate()
        try store.add(e1, conversation: "c", epoch: 1)
        try store.add(e3, conversation: "c", epoch: 3, notAfter: 1_500)
        try store.add(e2, conversation: "c", epoch: 2, notAfter: 2_000)
        #expect(try store.asDirectory.currentKey(conversation: "c").key == e3)
        clock.set(1_500)  // not-after is inclusive
        #expect(try store.asDirectory.currentKey(conversation: "c").key == e3)
        // Past the newest epoch's not-after time there is no current key: never epoch 2 or 1,
        // which a member removed by a rotation may hold.
        clock.set(1_501)
        #expect(storeError { try store.asDirectory.currentKey(conversation: "c") } == .itemNotFound)
        clock.set(2_001)
        #expect(storeError { try store.asDirectory.currentKey(conversation: "c") } == .itemNotFound)
        // An expired key is still returned by key id until purged (the receiver's freshness
        // check decides about old notifications).
        #expect(try store.key(for: e3.id).key == e3)
    }

    @Test func rotateCreatesTheNextEpochAndRetiresThePreviousOnes() throws {
        let clock = ManualClock(10_000)
        let store = try makeStore(TemporaryDirectory(), clock: clock)
        let first = try store.asDirectory.rotate(conversation: "c", label: "first")
        #expect(first.item.epoch == 1)
        #expect(first.item.notAfter == nil)
        #expect(first.item.label == "first")
        #expect(try store.key(for: first.item.keyID).key == first.key)

        let pinned = try store.add(.generate(), conversation: "c", epoch: 5, notAfter: 99)
        clock.set(20_000)
        let second = try store.asDirectory.rotate(conversation: "c")
        #expect(second.item.epoch == 6)
        #expect(second.item.createdAt == 20_000)
        #expect(second.key != first.key)
        let items = try store.items(conversation: "c")
        #expect(items.map(\.epoch) == [1, 5, 6])
        #expect(items[0].notAfter == 20_000)  // had none: retired now
        #expect(items[1] == pinned)  // had one: unchanged
        #expect(items[2].notAfter == nil)
        #expect(try store.asDirectory.currentKey(conversation: "c").key == second.key)

        // The grace period belongs to the purge (31 days by default), not to the retire-by time.
        clock.set(30_000)
        let third = try store.asDirectory.rotate(conversation: "c")
        #expect(try store.key(for: second.item.keyID).item.notAfter == 30_000)
        #expect(try store.asDirectory.currentKey(conversation: "c").key == third.key)
        #expect(DeviceKeyStore.defaultGracePeriod == 2_678_400)
    }

    /// Issue 24 item 4: the rotation retires every earlier live epoch, a key with a lifetime too
    /// (`min(not-after, now)`); before, only rows without a not-after time were touched and a
    /// 90-day key stayed live for the removed member.
    @Test func rotationRetiresAKeyWithALifetimeToo() throws {
        let clock = ManualClock(1_000_000)
        let store = try makeStore(TemporaryDirectory(), clock: clock)
        let lifetime = try store.add(.generate(), conversation: "c", notAfter: 1_000_000 + 90 * 86_400)
        let ended = try store.add(.generate(), conversation: "c", notAfter: 999_000)
        clock.set(1_086_400)
        let rotated = try store.asDirectory.rotate(conversation: "c")
        #expect(try store.key(for: lifetime.keyID).item.notAfter == 1_086_400, "retired at the rotation")
        #expect(try store.key(for: ended.keyID).item.notAfter == 999_000, "an earlier not-after stays")
        #expect(try store.key(for: lifetime.keyID).item.isLive(at: 1_086_400 + 30 * 86_400) == false)
        #expect(try store.asDirectory.currentKey(conversation: "c").key == rotated.key)
    }

    @Test func rotationRetiresAtTheEndOfThisSecondAndPurgeWaitsForTheGracePeriod() throws {
        let clock = ManualClock(500)
        let store = try makeStore(TemporaryDirectory(), clock: clock)
        let old = try store.asDirectory.rotate(conversation: "c")
        _ = try store.asDirectory.rotate(conversation: "c")
        #expect(try store.key(for: old.item.keyID).item.notAfter == 500)
        clock.set(501)
        #expect(try store.purgeExpired() == 0)  // within the default 31-day grace period
        clock.set(500 + DeviceKeyStore.defaultGracePeriod)
        #expect(try store.purgeExpired() == 0)  // inclusive boundary
        clock.set(501 + DeviceKeyStore.defaultGracePeriod)
        #expect(try store.purgeExpired() == 1)
        #expect(storeError { try store.key(for: old.item.keyID) } == .itemNotFound)
    }

    @Test func rotateToASuppliedKeyRetiresTheSameWayAndRefusesADuplicate() throws {
        let clock = ManualClock(1_000)
        let store = try makeStore(TemporaryDirectory(), clock: clock)
        let old = try store.asDirectory.rotate(conversation: "c")
        let supplied = ConversationKey.generate()
        let new = try store.asDirectory.rotate(conversation: "c", label: "mirrored", key: supplied)
        #expect(new.key == supplied)
        #expect(new.item.keyID == supplied.id)
        #expect(new.item.epoch == 2)
        #expect(new.item.label == "mirrored")
        #expect(try store.key(for: supplied.id).key == supplied)
        #expect(try store.key(for: old.item.keyID).item.notAfter == 1_000)
        #expect(try store.asDirectory.currentKey(conversation: "c").key == supplied)

        // The same key again: refused in the one transaction, so the retirement is not applied either.
        clock.set(2_000)
        #expect(storeError { try store.asDirectory.rotate(conversation: "c", key: supplied) } == .duplicateItem)
        #expect(try store.items(conversation: "c").map(\.notAfter) == [1_000, nil])
    }

    @Test func purgeExpiredDeletesOnlyItemsPastTheirNotAfterPlusTheGracePeriod() throws {
        let clock = ManualClock(1_000)
        let store = try makeStore(TemporaryDirectory(), clock: clock)
        try store.add(.generate(), conversation: "c", epoch: 1, notAfter: 899)
        let boundary = try store.add(.generate(), conversation: "c", epoch: 2, notAfter: 900)
        let open = try store.add(.generate(), conversation: "c", epoch: 3)
        let later = try store.add(.generate(), conversation: "d", epoch: 1, notAfter: 5_000)
        #expect(try store.purgeExpired(gracePeriod: 100) == 1)
        #expect(try store.items() == [boundary, open, later])
        clock.set(6_000)
        #expect(try store.purgeExpired(gracePeriod: 1_000) == 1)  // 900 + 1000 < 6000; 5000 + 1000 is the boundary
        #expect(try store.items() == [open, later])
        #expect(try store.purgeExpired(gracePeriod: 999) == 1)
        #expect(try store.items() == [open])
        #expect(try store.purgeExpired() == 0)
    }

    @Test func removeRemovesOneItemOneConversationOrEverything() throws {
        let store = try makeStore(TemporaryDirectory())
        let a = ConversationKey.generate()
        try store.add(a, conversation: "a", epoch: 1)
        try store.add(.generate(), conversation: "a", epoch: 2)
        try store.add(.generate(), conversation: "b", epoch: 1)
        try store.add(.generate(), conversation: "c", epoch: 1)
        _ = try store.recordDelivery(conversation: "a", messageID: "m")

        try store.remove(keyID: a.id)
        #expect(storeError { try store.key(for: a.id) } == .itemNotFound)
        #expect(storeError { try store.remove(keyID: a.id) } == .itemNotFound)
        #expect(try store.removeConversation("b") == 1)
        #expect(try store.removeConversation("b") == 0)
        #expect(try store.items().map(\.conversation) == ["a", "c"])

        #expect(try store.removeAll() == 2)
        #expect(try store.items() == [])
        #expect(try store.deliveryCount() == 0)
        // The store stays usable after a wipe.
        let again = try store.asDirectory.rotate(conversation: "a")
        #expect(again.item.epoch == 1)
    }

    @Test func lookupAnswersFoundNotFoundOrUnavailable() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let key = ConversationKey.generate()
        try store.add(key, conversation: "c", epoch: 1)
        let right = MasterKeySource.keyFile(path: dir.keyFile)
        let wrong = MasterKeySource.bytes(.random())
        let missing = MasterKeySource.keyFile(path: dir.file("nope.key"))

        guard case let .found(stored) = DeviceKeyStore.lookup(key.id, directory: dir.store, masterKey: right) else {
            Issue.record("expected found")
            return
        }
        #expect(stored.key == key)
        #expect(stored.item.conversation == "c")
        if case let .found(viaInstance) = store.lookup(key.id) { #expect(viaInstance.key == key) } else { Issue.record("instance lookup") }

        // SPEC §10.2 / Appendix A.2: a kid the store does not hold is unknown even when locked.
        let other = ConversationKey.generate().id
        for source in [right, wrong, missing] {
            guard case .notFound = DeviceKeyStore.lookup(other, directory: dir.store, masterKey: source) else {
                Issue.record("expected notFound with \(source)")
                continue
            }
        }
        guard case .notFound = store.lookup(other) else { Issue.record("instance notFound"); return }

        // A held kid with an unusable master key is unavailable (store_locked).
        for source in [wrong, missing] {
            guard case let .unavailable(error) = DeviceKeyStore.lookup(key.id, directory: dir.store, masterKey: source),
                  error.lockedReason != nil
            else {
                Issue.record("expected unavailable(locked) with \(source)")
                continue
            }
        }
        // No store at all: unavailable, and nothing is created.
        guard case .unavailable(.storeNotFound) = DeviceKeyStore.lookup(key.id, directory: dir.file("none"), masterKey: right) else {
            Issue.record("expected unavailable(storeNotFound)")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("none")))
    }

    @Test func oneInstanceIsSafeToUseFromManyThreads() throws {
        let store = try makeStore(TemporaryDirectory())
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            do {
                for round in 0..<6 {
                    let key = ConversationKey.generate()
                    try store.add(key, conversation: "t\(thread)", epoch: Int64(round))
                    guard try store.key(for: key.id).key == key else { throw KeyDirectoryError.invalidStore("mismatch") }
                    _ = try store.asDirectory.rotate(conversation: "shared")
                    _ = try store.recordDelivery(conversation: "shared", messageID: "\(round)")
                }
            } catch {
                failures.withLock { $0.append("\(thread): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let shared = try store.items(conversation: "shared")
        #expect(shared.map(\.epoch) == Array(1...48))
        #expect(try store.items().count == 48 + 48)
        #expect(try store.deliveryCount() == 6)
    }
}

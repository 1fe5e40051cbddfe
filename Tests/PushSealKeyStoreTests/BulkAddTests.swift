import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Testing

/// `DeviceKeyStore.addAll` (package access; the benchmark builds its 100,000-key stores with it).
@Suite("Key store bulk add")
struct BulkAddTests {
    @Test func addsEveryItemAsAddWould() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir, clock: ManualClock(42))
        let items = (0..<50).map { DeviceKeyStore.NewItem(key: ConversationKey.generate(), conversation: "c\($0 % 5)", epoch: Int64($0 / 5)) }
        try store.addAll(items, label: "bulk")
        let reopened = try reopen(dir)
        for item in items {
            let stored = try reopened.key(for: item.key.id)
            #expect(stored.key == item.key)
            #expect(stored.item == KeyItem(
                keyID: item.key.id, conversation: item.conversation, epoch: item.epoch, label: "bulk", createdAt: 42, notAfter: nil))
        }
        #expect(try reopened.items().count == 50)
        #expect(try reopened.asDirectory.currentKey(conversation: "c3").key == items[48].key)
    }

    @Test func aDuplicateAddsNothing() throws {
        let store = try makeStore(TemporaryDirectory())
        let existing = ConversationKey.generate()
        try store.add(existing, conversation: "c", epoch: 1)
        let fresh = DeviceKeyStore.NewItem(key: ConversationKey.generate(), conversation: "d", epoch: 1)
        // Same kid as a stored key.
        #expect(storeError { try store.addAll([fresh, DeviceKeyStore.NewItem(key: existing, conversation: "e", epoch: 1)]) } == .duplicateItem)
        // Same (conversation, epoch) twice within the batch.
        #expect(storeError { try store.addAll([fresh, DeviceKeyStore.NewItem(key: ConversationKey.generate(), conversation: "d", epoch: 1)]) } == .duplicateItem)
        #expect(try store.items().map(\.keyID) == [existing.id])
    }

    @Test func invalidItemsAreRefusedBeforeWriting() throws {
        let store = try makeStore(TemporaryDirectory())
        let good = DeviceKeyStore.NewItem(key: ConversationKey.generate(), conversation: "c", epoch: 1)
        let calls: [[DeviceKeyStore.NewItem]] = [
            [good, DeviceKeyStore.NewItem(key: ConversationKey.generate(), conversation: "", epoch: 1)],
            [good, DeviceKeyStore.NewItem(key: ConversationKey.generate(), conversation: String(repeating: "x", count: 257), epoch: 1)],
            [good, DeviceKeyStore.NewItem(key: ConversationKey.generate(), conversation: "d", epoch: -1)],
        ]
        for items in calls {
            guard case .invalidArgument? = storeError({ try store.addAll(items) }) else {
                Issue.record("expected invalidArgument")
                continue
            }
        }
        #expect(try store.items().isEmpty)
        try store.addAll([])
        #expect(try store.items().isEmpty)
    }
}

import PushSealTestSupport
import Testing
import PushSealCore
import PushSealKeyDirectory
import PushSealJSON
import PushSealPlatform
@_spi(Vectors) @testable import PushSealProvider

@Suite("Salts, determinism and the batch API")
struct DeterminismAndBatchTests {
    let key = testKey(5)
    let content = NotificationContent(conversationID: "c", messageID: "m", sentAt: 1_700_000_000, title: "T", body: "Body text")

    @Test("An injected salt makes sealing deterministic, byte for byte")
    func injectedSalt() throws {
        let sealer = try NotificationSealer(clock: { 0 })
        let salt = [UInt8](repeating: 0xA5, count: 24)
        let a = try sealer.seal(content, with: key, options: APNsOptions(), salt: salt)
        let b = try sealer.seal(content, with: key, options: APNsOptions(), salt: salt)
        #expect(a == b)
        let f1 = try sealer.seal(content, with: key, options: FCMOptions(token: "t"), salt: salt)
        let f2 = try sealer.seal(content, with: key, options: FCMOptions(token: "t"), salt: salt)
        #expect(f1 == f2)
        let derived = try NotificationSealer(deterministicSalt: saltFromMessageID)
        #expect(try derived.seal(content, with: key, options: FCMOptions(token: "t")) == derived.seal(content, with: key, options: FCMOptions(token: "t")))
    }

    @Test("Random salts: every payload, salt and ciphertext differs")
    func randomSalts() throws {
        let sealer = try NotificationSealer()
        var wires = Set<String>()
        var salts = Set<[UInt8]>()
        var ciphertexts = Set<[UInt8]>()
        for _ in 0..<50 {
            let request = try sealer.seal(content, with: key, options: APNsOptions())
            let wire = try #require(try JSONParser.parse(request.body).objectValue?["pushseal"]?.stringValue)
            let envelope = try Envelope(wire: wire)
            wires.insert(wire)
            salts.insert(envelope.salt)
            ciphertexts.insert(Array(envelope.bytes[41...]))
            #expect(try envelope.openContent(with: key) == content)
        }
        #expect(wires.count == 50 && salts.count == 50 && ciphertexts.count == 50)
    }

    /// The salt of a sealed APNs body.
    func salt(of request: APNsRequest) throws -> [UInt8] {
        let wire = try #require(try JSONParser.parse(request.body).objectValue?["pushseal"]?.stringValue)
        return try Envelope(wire: wire).salt
    }

    @Test("A replayed salt pool (a VM snapshot restored twice) still gives two seals under one key different salts")
    func replayedPoolGivesDistinctSalts() throws {
        let sealer = try NotificationSealer()
        _ = try sealer.seal(content, with: key, options: APNsOptions())   // this thread's pool is filled
        let snapshot = try #require(RandomPool.pageStateForTesting())
        // The hook replays the pool: the same raw bytes come out twice.
        var raw1 = [UInt8](repeating: 0, count: 24), raw2 = raw1
        raw1.withUnsafeMutableBytes { RandomPool.fill($0) }
        RandomPool.restorePageForTesting(snapshot)
        raw2.withUnsafeMutableBytes { RandomPool.fill($0) }
        #expect(raw1 == raw2)
        // Two "copies" of the snapshot seal under the same key: the salts (so the message keys) differ.
        RandomPool.restorePageForTesting(snapshot)
        let first = try sealer.seal(content, with: key, options: APNsOptions())
        RandomPool.restorePageForTesting(snapshot)
        let second = try sealer.seal(content, with: key, options: APNsOptions())
        let salts = [try salt(of: first), try salt(of: second)]
        #expect(salts[0] != salts[1])
        #expect(salts[0] != raw1 && salts[1] != raw1)
        // Only the hedged bytes differ; both open.
        #expect(salts[0][16...] == raw1[16...] && salts[1][16...] == raw1[16...])
        for request in [first, second] {
            let wire = try #require(try JSONParser.parse(request.body).objectValue?["pushseal"]?.stringValue)
            #expect(try Envelope(wire: wire).openContent(with: key) == content)
        }
    }

    @Test("Batches sealed on several threads at once never repeat a salt")
    func concurrentBatchesNeverRepeatASalt() async throws {
        let sealer = try NotificationSealer()
        let key = key
        let items = (0..<1_500).map { index in
            BatchItem(content: NotificationContent(conversationID: "c", messageID: "m\(index)", sentAt: 1_700_000_000, body: "b"), key: key, options: APNsOptions())
        }
        let salts = try await withThrowingTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try sealer.seal(batch: items).map { result in
                        let wire = try #require(try JSONParser.parse(result.get().body).objectValue?["pushseal"]?.stringValue)
                        return try Envelope(wire: wire).salt
                    }
                }
            }
            var all: [[UInt8]] = []
            for try await part in group { all += part }
            return all
        }
        #expect(salts.count == 6_000)
        #expect(Set(salts).count == salts.count)
    }

    /// 10,000 mixed items: valid ones of every size path, items sealed with the provider's current
    /// key, and invalid ones of several kinds.
    func mixedItems<Options>(_ options: (Int, inout SeededGenerator) -> Options) -> [BatchItem<Options>] {
        var rng = SeededGenerator(seed: 2024)
        var items: [BatchItem<Options>] = []
        items.reserveCapacity(10_000)
        for index in 0..<10_000 {
            var content = NotificationContent(
                conversationID: "conv-\(index % 37)", messageID: "msg-\(index)", sentAt: 1_700_000_000 + Int64(index),
                title: index % 3 == 0 ? "Title \(index)" : nil, body: "Message \(index) 👋🏽")
            switch index % 50 {
            case 7: content.body = TextPieces.text(byteCount: 5_000, kind: .mixed, using: &rng)      // truncated
            case 8: content.title = String(repeating: "T", count: 3_800)                          // content-free
            case 9: content.conversationID = ""                                                   // invalid
            case 10: content.badge = -3                                                           // invalid
            case 11: content.sentAt = -1                                                          // invalid
            case 12: content.body = nil                                                           // invalid (title present)
                content.title = "needs a body"
            case 13: content.conversationID = "no-such-conversation"                              // unknown key
            default: break
            }
            let key: ConversationKey? = index % 4 == 0 ? nil : testKey(UInt8(index % 37))
            items.append(BatchItem(content: content, key: key, options: options(index, &rng)))
        }
        return items
    }

    var provider: FixedKeyProvider {
        FixedKeyProvider((0..<37).map { (conversation: "conv-\($0)", key: testKey(UInt8($0))) })
    }

    @Test("APNs batch of 10,000 mixed items equals sealing one by one")
    func apnsBatch() throws {
        let sealer = try NotificationSealer(clock: { 1_000 }, deterministicSalt: saltFromMessageID)
        let items = mixedItems { index, _ in
            APNsOptions(topic: "com.example.chat", collapseID: index % 97 == 5 ? String(repeating: "c", count: 65) : nil)
        }
        let provider = provider
        let batch = sealer.seal(batch: items, keyProvider: provider)
        #expect(batch.count == items.count)
        var failures = 0
        var paths = Set<String>()
        for (item, result) in zip(items, batch) {
            let single = Result { () throws(ProviderError) -> APNsRequest in
                if let key = item.key { return try sealer.seal(item.content, with: key, options: item.options) }
                return try sealer.seal(item.content, keyProvider: provider, options: item.options)
            }
            #expect(result == single)
            switch result {
            case .failure: failures += 1
            case let .success(request): paths.insert("\(request.path)".prefix(9).description)
            }
        }
        #expect(failures > 500 && failures < 2_000)
        #expect(paths.count == 3)
        // Spot-check that batch payloads open.
        for index in stride(from: 1, to: items.count, by: 997) {
            if case let .success(request) = batch[index] {
                let key = try provider.currentKey(conversation: items[index].content.conversationID)
                try checkPayload(request.checked, content: items[index].content, key: key, transport: .apns(items[index].options), padBlock: 256)
            }
        }
    }

    @Test("FCM batch with some malformed tokens equals sealing one by one")
    func fcmBatch() throws {
        let sealer = try NotificationSealer(deterministicSalt: saltFromMessageID)
        let items = Array(mixedItems { index, _ in FCMOptions(token: index % 41 == 3 ? "bad token" : "token-\(index)") }.prefix(3_000))
        let batch = sealer.seal(batch: items, keyProvider: provider)
        for (item, result) in zip(items, batch) {
            let single = Result { () throws(ProviderError) -> FCMMessage in
                if let key = item.key { return try sealer.seal(item.content, with: key, options: item.options) }
                return try sealer.seal(item.content, keyProvider: provider, options: item.options)
            }
            #expect(result == single)
        }
        #expect(batch.contains { if case .failure(.invalidFCMToken) = $0 { true } else { false } })
    }

    @Test("Items sharing key values (each thread seals with its own copy) equal sealing one by one")
    func sharedKeys() throws {
        // A fixed clock: the relative APNs expiration must not tick between batch and single seals.
        let sealer = try NotificationSealer(clock: { 1_000 }, deterministicSalt: saltFromMessageID)
        // Three key values shared by 3,000 items, interleaved so that every thread sees all of
        // them in changing order, plus one key object per item every seventh item.
        let shared = (0..<3).map { testKey(UInt8(200 + $0)) }
        let items = (0..<3_000).map { index in
            let key = index % 7 == 0 ? testKey(UInt8(index % 5)) : shared[(index * index) % 3]
            let content = NotificationContent(conversationID: "c", messageID: "m\(index)", sentAt: 1_000, body: "b\(index)")
            return BatchItem(content: content, key: key, options: APNsOptions(topic: "com.example.chat"))
        }
        let batch = sealer.seal(batch: items)
        #expect(batch.count == items.count)
        for (item, result) in zip(items, batch) {
            let single = try sealer.seal(item.content, with: item.key!, options: item.options)
            #expect(try result.get() == single)
            #expect(single.keyID == item.key!.id)
        }
    }

    @Test("Runs of one options value (each thread seals with its own copy of it) equal sealing one by one")
    func repeatedOptions() throws {
        let sealer = try NotificationSealer(clock: { 1_000 }, deterministicSalt: saltFromMessageID)
        let key = testKey(3)
        func heap(_ text: String) -> String { String(decoding: Array(text.utf8), as: UTF8.self) }
        let localized = APNsOptions(
            placeholder: .localized(titleKey: heap("title.key.for.new.messages"), titleArguments: [heap("a much longer argument")],
                                    bodyKey: heap("body.key.for.new.messages"), bodyArguments: [heap("x"), heap("another long argument")]),
            topic: heap("com.example.chat.with.a.long.topic"), collapseID: heap("collapse-identifier-0123456789"),
            sound: heap("a-sound-name-longer-than-15"), category: heap("a-category-longer-than-15"),
            threadID: .plain(heap("a plain thread id, longer than 15 bytes")))
        let plain = APNsOptions(placeholder: .text(title: heap("A title longer than 15 bytes"), body: heap("A body longer than 15 bytes")))
        // Runs of the same value, a value repeated after another, and single items in between.
        let apnsItems = (0..<2_000).map { index in
            let content = NotificationContent(conversationID: "c", messageID: "m\(index)", sentAt: 1_000, body: "b\(index)")
            let options = index % 50 < 30 ? localized : (index % 3 == 0 ? APNsOptions(topic: heap("t-\(index)-long-enough-topic")) : plain)
            return BatchItem(content: content, key: key, options: options)
        }
        for (item, result) in zip(apnsItems, sealer.seal(batch: apnsItems)) {
            #expect(try result.get() == sealer.seal(item.content, with: key, options: item.options))
        }
        let token = heap(String(repeating: "t", count: 152))
        let fcmItems = (0..<500).map { index in
            BatchItem(content: NotificationContent(conversationID: "c", messageID: "m\(index)", sentAt: 1_000, body: "b"),
                      key: key, options: FCMOptions(token: index % 7 == 0 ? heap("other-token-\(index)-long") : token))
        }
        for (item, result) in zip(fcmItems, sealer.seal(batch: fcmItems)) {
            #expect(try result.get() == sealer.seal(item.content, with: key, options: item.options))
        }
    }

    @Test("Batches of every size around the claim sizes, collected and delivered, with fresh salts, each open to their own content")
    func batchSizesWithRandomSalts() throws {
        let sealer = try NotificationSealer()
        let claims = NotificationSealer.batchClaimSizes
        var wires = Set<[UInt8]>()
        var sealed = 0
        // Fewer items than threads × the smallest claim, the claim sizes' bounds, and batches
        // whose claims shrink from the largest to the smallest.
        let sizes = Array(1...(2 * claims.lowerBound + 1)) + [claims.upperBound - 1, claims.upperBound, claims.upperBound + 1, 255, 256, 257, 1_000]
        for size in sizes {
            let contents = (0..<size).map { index in
                NotificationContent(conversationID: "c", messageID: "m\(size)-\(index)", sentAt: 1_700_000_000, body: "body \(index)")
            }
            let items = contents.map { BatchItem(content: $0, key: key, options: APNsOptions()) }
            let collected = sealer.seal(batch: items)
            let deliveries = Deliveries<APNsRequest>()
            sealer.seal(batch: items) { index, result in deliveries.record(index, result) }
            let (delivered, repeated) = deliveries.recorded
            #expect(collected.count == size && delivered.count == size && repeated.isEmpty)
            for (index, content) in contents.enumerated() {
                for request in [try collected[index].get(), try #require(try delivered[index]?.get())] {
                    #expect(try checkPayload(request.checked, content: content, key: key, transport: .apns(APNsOptions()), padBlock: 256) == content)
                    wires.insert(request.body)
                    sealed += 1
                }
            }
        }
        // One fresh salt per item and call, in both forms: no two payloads alike.
        #expect(wires.count == sealed)
    }

    @Test("The key provider is asked at most once per conversation and thread of a batch")
    func keyProviderLookups() throws {
        final class CountingProvider: CurrentKeyProvider, @unchecked Sendable {
            let keys: FixedKeyProvider
            let lock = Lock()
            var calls: [String: Int] = [:]
            init(_ keys: FixedKeyProvider) { self.keys = keys }
            func currentKey(conversation: String) throws -> ConversationKey {
                lock.withLock { calls[conversation, default: 0] += 1 }
                return try keys.currentKey(conversation: conversation)
            }
        }
        let sealer = try NotificationSealer(clock: { 1_000 }, deterministicSalt: saltFromMessageID)
        let provider = CountingProvider(FixedKeyProvider([(conversation: "a", key: testKey(1)), (conversation: "b", key: testKey(2))]))
        let items = (0..<2_000).map { index in
            BatchItem(
                content: NotificationContent(conversationID: ["a", "b", "unknown"][index % 3], messageID: "m\(index)", sentAt: 1_000, body: "b"),
                options: APNsOptions(topic: "com.example.chat"))
        }
        let results = sealer.seal(batch: items, keyProvider: provider)
        for (item, result) in zip(items, results) {
            #expect(result == Result { () throws(ProviderError) in try sealer.seal(item.content, keyProvider: provider.keys, options: item.options) })
        }
        let calls = provider.lock.withLock { provider.calls }
        #expect(Set(calls.keys) == ["a", "b", "unknown"])
        for (conversation, count) in calls {
            #expect(count >= 1 && count <= Processors.onlineCount, "\(conversation): \(count) lookups")
        }
    }

    @Test("Batch without a key provider: items without a key fail alone")
    func batchWithoutProvider() throws {
        let sealer = try NotificationSealer()
        let items = [
            BatchItem(content: content, key: key, options: APNsOptions()),
            BatchItem(content: content, key: nil, options: APNsOptions()),
            BatchItem(content: content, key: key, options: APNsOptions()),
        ]
        let results = sealer.seal(batch: items)
        #expect(results.count == 3)
        #expect((try? results[0].get()) != nil)
        #expect(results[1] == .failure(.keyUnavailable(conversation: "c", detail: "no key given and no key provider")))
        #expect((try? results[2].get()) != nil)
        #expect(sealer.seal(batch: [BatchItem<FCMOptions>]()).isEmpty)
    }
}

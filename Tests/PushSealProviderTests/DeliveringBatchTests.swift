import Testing
import PushSealCore
@_spi(Vectors) @testable import PushSealProvider

/// What `seal(batch:deliver:)` gives back, recorded from every delivering thread.
final class Deliveries<Output: Sendable>: @unchecked Sendable {
    private let lock = Lock()
    private var results: [Int: Result<Output, ProviderError>] = [:]
    private var repeated: [Int] = []

    func record(_ index: Int, _ result: consuming Result<Output, ProviderError>) {
        let result = result
        lock.withLock {
            if results.updateValue(result, forKey: index) != nil { repeated.append(index) }
        }
    }

    /// The results by index, and the indices delivered more than once.
    var recorded: (results: [Int: Result<Output, ProviderError>], repeated: [Int]) {
        lock.withLock { (results, repeated) }
    }
}

extension DeterminismAndBatchTests {
    @Test("Delivering APNs batch: each of 10,000 mixed items once, before the call returns, equal to the collected batch")
    func deliveringAPNsBatch() throws {
        let sealer = try NotificationSealer(clock: { 1_000 }, deterministicSalt: saltFromMessageID)
        let items = mixedItems { index, _ in APNsOptions(topic: "com.example.chat", collapseID: index % 97 == 5 ? String(repeating: "c", count: 65) : nil) }
        let provider = provider
        let deliveries = Deliveries<APNsRequest>()
        sealer.seal(batch: items, keyProvider: provider) { index, result in deliveries.record(index, result) }
        let (delivered, repeated) = deliveries.recorded
        #expect(repeated.isEmpty)
        #expect(Set(delivered.keys) == Set(items.indices))
        let collected = sealer.seal(batch: items, keyProvider: provider)
        var failures = 0
        for (index, result) in collected.enumerated() {
            #expect(delivered[index] == result, "item \(index)")
            if case .failure = result { failures += 1 }
        }
        // The mix has failures of several kinds, each delivered for its own item.
        #expect(failures > 500 && failures < 2_000)
    }

    @Test("Delivering FCM batch with malformed tokens equals sealing one by one")
    func deliveringFCMBatch() throws {
        let sealer = try NotificationSealer(deterministicSalt: saltFromMessageID)
        let items = Array(mixedItems { index, _ in FCMOptions(token: index % 41 == 3 ? "bad token" : "token-\(index)") }.prefix(3_000))
        let provider = provider
        let deliveries = Deliveries<FCMMessage>()
        sealer.seal(batch: items, keyProvider: provider) { index, result in deliveries.record(index, result) }
        let (delivered, repeated) = deliveries.recorded
        #expect(repeated.isEmpty && delivered.count == items.count)
        for (index, item) in items.enumerated() {
            let single = Result { () throws(ProviderError) -> FCMMessage in
                if let key = item.key { return try sealer.seal(item.content, with: key, options: item.options) }
                return try sealer.seal(item.content, keyProvider: provider, options: item.options)
            }
            #expect(delivered[index] == single, "item \(index)")
        }
        #expect(delivered.values.contains { if case .failure(.invalidFCMToken) = $0 { true } else { false } })
    }

    @Test("Delivering an empty batch calls nothing; an item without a key fails alone")
    func deliveringEdgeCases() throws {
        let sealer = try NotificationSealer()
        let none = Deliveries<APNsRequest>()
        sealer.seal(batch: [BatchItem<APNsOptions>]()) { index, result in none.record(index, result) }
        #expect(none.recorded.results.isEmpty)
        let noFCM = Deliveries<FCMMessage>()
        sealer.seal(batch: [BatchItem<FCMOptions>]()) { index, result in noFCM.record(index, result) }
        #expect(noFCM.recorded.results.isEmpty)

        let deliveries = Deliveries<FCMMessage>()
        let items = [
            BatchItem(content: content, key: key, options: FCMOptions(token: "t")),
            BatchItem(content: content, key: nil, options: FCMOptions(token: "t")),
        ]
        sealer.seal(batch: items) { index, result in deliveries.record(index, result) }
        let delivered = deliveries.recorded.results
        #expect(delivered.count == 2)
        #expect((try? delivered[0]?.get()) != nil)
        #expect(delivered[1] == .failure(.keyUnavailable(conversation: "c", detail: "no key given and no key provider")))
    }
}

@Suite("Batch claims")
struct BatchClaimsTests {
    @Test("Claims cover every item once, in order, shrinking from the largest to the smallest size")
    func guidedClaims() {
        let sizes = NotificationSealer.batchClaimSizes
        for threads in 1...4 {
            for count in Array(1...300) + [1_024, 4_096, 65_536] {
                let claims = BatchClaims(count: count, threads: threads, claimSizes: sizes)
                var next = 0
                var previous = Int.max
                while let claim = claims.next() {
                    #expect(claim.lowerBound == next && claim.count >= 1)
                    // Only the last claim may be smaller than the smallest size.
                    #expect(claim.count <= sizes.upperBound && (claim.count >= sizes.lowerBound || claim.upperBound == count))
                    #expect(claim.count <= previous)
                    previous = claim.count
                    next = claim.upperBound
                }
                #expect(next == count, "threads \(threads), count \(count)")
                #expect(claims.next() == nil)
            }
        }
        // A large batch starts with the largest claims and ends with the smallest.
        let claims = BatchClaims(count: 1_024, threads: 2, claimSizes: sizes)
        var counts: [Int] = []
        while let claim = claims.next() { counts.append(claim.count) }
        #expect(counts.first == sizes.upperBound && counts.last == sizes.lowerBound)
        #expect(counts.count < 1_024 / sizes.lowerBound / 4)
    }
}

import PushSealCore
import PushSealProvider

/// Provider figures: content (a `NotificationContent`) to complete APNs payload bytes.
enum SealWorkloads {
    /// Items per `seal(batch:)` call.
    static let batchSize = 256

    static func singleName(_ contentBytes: Int) -> String { "seal.apns.\(contentBytes)" }
    static func batchName(_ contentBytes: Int) -> String { "seal.batch.\(contentBytes)" }

    /// `NotificationSealer.seal(_:with:options:)` in a loop on one thread.
    static func single(contentBytes: Int, key: ConversationKey) -> Workload {
        let padded = Fixtures.paddedByteCount(contentByteCount: contentBytes)
        return Workload(
            name: singleName(contentBytes), group: "seal", limit: RawAEAD.encryptName(padded),
            attributes: [("content_bytes", .integer(contentBytes)), ("padded_bytes", .integer(padded))],
            makeWorker: { repeatedSeal(contentBytes: contentBytes, key: key, options: Fixtures.apnsOptions) })
    }

    /// A worker that seals one content of `contentBytes` bytes over and over on its thread.
    private static func repeatedSeal(contentBytes: Int, key: ConversationKey, options: APNsOptions) -> Worker {
        let sealer = try! NotificationSealer()
        let content = Fixtures.content(byteCount: contentBytes)
        return Worker { iterations in
            var total = 0
            for _ in 0..<iterations {
                total &+= try! sealer.seal(content, with: key, options: options).body.count
            }
            return total
        }
    }

    static func threadsName(_ contentBytes: Int) -> String { "seal.threads.\(contentBytes)" }
    static func loopName(_ contentBytes: Int) -> String { "seal.loop.\(contentBytes)" }

    /// The batch's work on one core: the same `batchSize` distinct items sealed one by one on
    /// one thread (per item). The batch's speedup is measured against this: `seal.apns.N` seals
    /// one content over and over, whose working set stays in the first-level cache, which flatters
    /// one core by ~15 % against 256 distinct items.
    static func loop(contentBytes: Int, key: ConversationKey) -> Workload {
        let padded = Fixtures.paddedByteCount(contentByteCount: contentBytes)
        return Workload(
            name: loopName(contentBytes), group: "seal", operationsPerIteration: batchSize,
            limit: RawAEAD.encryptName(padded),
            attributes: [("content_bytes", .integer(contentBytes)), ("padded_bytes", .integer(padded)), ("batch", .integer(batchSize))],
            makeWorker: {
                let sealer = try! NotificationSealer()
                let items = batchItems(contentBytes: contentBytes, key: key)
                return Worker { iterations in
                    var total = 0
                    for _ in 0..<iterations {
                        let results = items.map { try! sealer.seal($0.content, with: $0.key!, options: $0.options) }
                        for result in results { total &+= result.body.count }
                    }
                    return total
                }
            })
    }

    /// The items of one batch call: distinct contents of `contentBytes` bytes, one key, the
    /// default options.
    static func batchItems(contentBytes: Int, key: ConversationKey) -> [BatchItem<APNsOptions>] {
        (0..<batchSize).map {
            BatchItem(content: Fixtures.content(byteCount: contentBytes, message: $0), key: key, options: Fixtures.apnsOptions)
        }
    }

    /// Single seals on every core at once, each thread with its own content, options and key
    /// copy (as a server that shards its work by thread): how far sealing itself scales, next to
    /// the batch API, which reads the caller's items and hands results back to it.
    static func threads(contentBytes: Int, key: ConversationKey, cores: Int) -> Workload {
        let padded = Fixtures.paddedByteCount(contentByteCount: contentBytes)
        return Workload(
            name: threadsName(contentBytes), group: "seal", threads: cores, cores: cores,
            limit: RawAEAD.encryptName(padded, allCores: true), speedupBase: singleName(contentBytes),
            attributes: [("content_bytes", .integer(contentBytes)), ("padded_bytes", .integer(padded))],
            makeWorker: {
                repeatedSeal(contentBytes: contentBytes, key: key.privateCopy(), options: Fixtures.apnsOptions.unsharedCopy())
            })
    }

    /// `NotificationSealer.seal(batch:)` (every core, from one calling thread), `batchSize` items
    /// per call; the figure is per item.
    static func batch(contentBytes: Int, key: ConversationKey, cores: Int) -> Workload {
        let padded = Fixtures.paddedByteCount(contentByteCount: contentBytes)
        return Workload(
            name: batchName(contentBytes), group: "seal", cores: cores, operationsPerIteration: batchSize,
            limit: RawAEAD.encryptName(padded, allCores: cores > 1), speedupBase: loopName(contentBytes),
            attributes: [("content_bytes", .integer(contentBytes)), ("padded_bytes", .integer(padded)), ("batch", .integer(batchSize))],
            makeWorker: {
                let sealer = try! NotificationSealer()
                let items = batchItems(contentBytes: contentBytes, key: key)
                return Worker { iterations in
                    var total = 0
                    for _ in 0..<iterations {
                        for result in sealer.seal(batch: items) { total &+= try! result.get().body.count }
                    }
                    return total
                }
            })
    }
}


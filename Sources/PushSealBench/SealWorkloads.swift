import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import PushSealProvider

/// Provider figures: content (a `NotificationContent`) to complete APNs payload bytes.
enum SealWorkloads {
    static func singleName(_ contentBytes: Int) -> String { "seal.apns.\(contentBytes)" }
    static func loopName(_ contentBytes: Int, allCores: Bool = false) -> String {
        "seal.loop.\(contentBytes)" + (allCores ? ".allcores" : "")
    }
    static func batchName(_ contentBytes: Int) -> String { "seal.batch.\(contentBytes)" }
    static func deliveringBatchName(_ contentBytes: Int) -> String { "seal.batch.\(contentBytes).deliver" }
    static func storeName(_ contentBytes: Int) -> String { "seal.store.\(contentBytes)" }

    /// `NotificationSealer.seal(_:with:options:)` in a loop on one thread, one content over and
    /// over.
    static func single(contentBytes: Int, key: ConversationKey) -> Workload {
        let padded = Fixtures.paddedByteCount(contentByteCount: contentBytes)
        return Workload(
            name: singleName(contentBytes), group: "seal", limit: RawAEAD.encryptName(padded),
            attributes: [("content_bytes", .integer(contentBytes)), ("padded_bytes", .integer(padded))],
            makeWorker: {
                let sealer = try! NotificationSealer()
                let content = Fixtures.content(byteCount: contentBytes)
                let options = Fixtures.apnsOptions
                return Worker { iterations in
                    var total = 0
                    for _ in 0..<iterations {
                        total &+= try! sealer.seal(content, with: key, options: options).body.count
                    }
                    return total
                }
            })
    }

    /// ``single(contentBytes:key:)`` with the conversation's current key from the device store
    /// fixture (its kept `KeyStore`, 10,000 keys) through a `CachingKeyProvider` with its default
    /// time to live, asked for the key on every seal: what a long-lived provider on SQLite does
    /// per notification. Compared with `seal.apns.N` (the key in memory), not with the raw AEAD.
    static func throughStore(_ fixture: StoreFixture, contentBytes: Int) -> Workload {
        throughProvider(
            name: storeName(contentBytes), contentBytes: contentBytes, attributes: [("keys", .integer(fixture.keyCount))],
            conversation: fixture.probeConversation
        ) {
            CachingKeyProvider(directory: SQLiteKeyDirectory(store: fixture.store))
        }
    }

    /// ``single(contentBytes:key:)`` with `conversation`'s current key asked from the provider
    /// `makeProvider` makes (once, before any timing) on every seal, through the same sealing
    /// path: the directory figures (`seal.store.N`, `seal.postgres.N`), each compared with
    /// `seal.apns.N` (the key in memory).
    static func throughProvider(
        name: String, contentBytes: Int, attributes: [(String, Attribute)], conversation: String,
        makeProvider: @escaping () -> any CurrentKeyProvider
    ) -> Workload {
        let padded = Fixtures.paddedByteCount(contentByteCount: contentBytes)
        return Workload(
            name: name, group: "seal", limit: singleName(contentBytes),
            attributes: [("content_bytes", .integer(contentBytes)), ("padded_bytes", .integer(padded))] + attributes,
            makeWorker: {
                let sealer = try! NotificationSealer()
                let provider = makeProvider()
                let content = Fixtures.content(byteCount: contentBytes, conversation: conversation)
                let options = Fixtures.apnsOptions
                return Worker { iterations in
                    var total = 0
                    for _ in 0..<iterations {
                        let key = try! provider.currentKey(conversation: conversation)
                        total &+= try! sealer.seal(content, with: key, options: options).body.count
                    }
                    return total
                }
            })
    }

    /// The batch's work without the batch API: `batchSize` distinct items sealed one by one,
    /// each request read and freed before the next seal (per item): the fastest way one core
    /// does this work. On one core it is what the batch's speedup is measured against (`seal.apns.N`
    /// seals one content over and over, whose working set stays in the first-level cache and
    /// flatters one core by ~15 %). On every core at once, each thread with its own items, key
    /// copy and options (a server that shards its work by thread), it is how far this work
    /// scales on the machine at the time: the ceiling for the batch, which also reads the
    /// caller's items and wakes a thread per call.
    static func loop(contentBytes: Int, key: ConversationKey, batchSize: Int, cores: Int = 1) -> Workload {
        let padded = Fixtures.paddedByteCount(contentByteCount: contentBytes)
        let allCores = cores > 1
        return Workload(
            name: loopName(contentBytes, allCores: allCores), group: "seal", threads: cores, cores: cores,
            operationsPerIteration: batchSize, limit: RawAEAD.encryptName(padded, allCores: allCores),
            speedupBase: allCores ? loopName(contentBytes) : nil,
            attributes: [("content_bytes", .integer(contentBytes)), ("padded_bytes", .integer(padded)), ("batch", .integer(batchSize))],
            makeWorker: {
                let sealer = try! NotificationSealer()
                let items = batchItems(
                    contentBytes: contentBytes, count: batchSize, key: allCores ? key.privateCopy() : key,
                    options: allCores ? Fixtures.makeAPNsOptions() : Fixtures.apnsOptions)
                return Worker { iterations in
                    var total = 0
                    for _ in 0..<iterations {
                        for item in items {
                            total &+= try! sealer.seal(item.content, with: item.key!, options: item.options).body.count
                        }
                    }
                    return total
                }
            })
    }

    /// The items of one batch call: distinct contents of `contentBytes` bytes, one key, one
    /// options value.
    static func batchItems(contentBytes: Int, count: Int, key: ConversationKey, options: APNsOptions = Fixtures.apnsOptions) -> [BatchItem<APNsOptions>] {
        (0..<count).map {
            BatchItem(content: Fixtures.content(byteCount: contentBytes, message: $0), key: key, options: options)
        }
    }

    /// A batch figure, `batchSize` items per call, every core, from one calling thread; the
    /// figure is per item.
    /// - `delivering` false: `NotificationSealer.seal(batch:)`. The calling thread reads and frees
    ///   every result after the call, alone: a serial part the delivering batch does not have.
    /// - `delivering` true: `seal(batch:deliver:)`. Each result is read (its size stored by
    ///   index, as a server would hand it to a sender) and freed on the thread that sealed it.
    ///   The figure the batch target applies to.
    static func batch(contentBytes: Int, key: ConversationKey, batchSize: Int, cores: Int, delivering: Bool) -> Workload {
        let padded = Fixtures.paddedByteCount(contentByteCount: contentBytes)
        return Workload(
            name: delivering ? deliveringBatchName(contentBytes) : batchName(contentBytes), group: "seal", cores: cores,
            operationsPerIteration: batchSize, limit: RawAEAD.encryptName(padded, allCores: cores > 1), speedupBase: loopName(contentBytes),
            attributes: [("content_bytes", .integer(contentBytes)), ("padded_bytes", .integer(padded)), ("batch", .integer(batchSize))],
            makeWorker: {
                let sealer = try! NotificationSealer()
                let items = batchItems(contentBytes: contentBytes, count: batchSize, key: key)
                guard delivering else {
                    return Worker { iterations in
                        var total = 0
                        for _ in 0..<iterations {
                            // Read like the one-by-one loop reads its requests (no copy out of the Result).
                            for result in sealer.seal(batch: items) { total &+= bodySize(result) }
                        }
                        return total
                    }
                }
                var sizes = [Int](repeating: 0, count: batchSize)
                return Worker { iterations in
                    var total = 0
                    for _ in 0..<iterations {
                        sizes.withUnsafeMutableBufferPointer { sizes in
                            nonisolated(unsafe) let slots = sizes
                            sealer.seal(batch: items) { index, result in slots[index] = bodySize(result) }
                        }
                        for size in sizes { total &+= size }
                    }
                    return total
                }
            })
    }

    /// The body size of a sealed request, read in place; a failed bench item stops the run.
    private static func bodySize(_ result: borrowing Result<APNsRequest, ProviderError>) -> Int {
        switch result {
        case let .success(request): request.body.count
        case let .failure(error): preconditionFailure("bench item failed: \(error)")
        }
    }
}

/// Per-device sealing (SPEC §4.4): one content for many devices of its conversation, each under
/// its own K_d from a `DeviceKeyCache`.
enum PerDeviceWorkloads {
    /// Devices per fan-out call.
    static let devices = 100
    static func singleName(_ contentBytes: Int) -> String { "seal.perdevice.\(contentBytes)" }
    static func fanOutName(_ contentBytes: Int) -> String { "seal.fanout.\(contentBytes).\(devices)" }

    static func deviceIDs() -> [KeyID] {
        (0..<devices).map { index in KeyID(bytes: (0..<16).map { UInt8(truncatingIfNeeded: index &* 131 &+ $0) })! }
    }

    /// The base: `devices` single seals on one thread, `seal(_:conversationKey:device:options:cache:)`
    /// with every K_d already cached.
    static func single(contentBytes: Int, key: ConversationKey) -> Workload {
        Workload(
            name: singleName(contentBytes), group: "seal", operationsPerIteration: devices,
            limit: RawAEAD.encryptName(Fixtures.paddedByteCount(contentByteCount: contentBytes)),
            attributes: [("content_bytes", .integer(contentBytes)), ("devices", .integer(devices))],
            makeWorker: {
                let sealer = try! NotificationSealer()
                let content = Fixtures.content(byteCount: contentBytes)
                let options = Fixtures.apnsOptions
                let cache = DeviceKeyCache()
                let ids = deviceIDs()
                for id in ids { _ = cache.deviceKey(of: key, for: id) }
                return Worker { iterations in
                    var total = 0
                    for _ in 0..<iterations {
                        for id in ids {
                            total &+= try! sealer.seal(content, conversationKey: key, device: id, options: options, cache: cache).body.count
                        }
                    }
                    return total
                }
            })
    }

    /// The fan-out call `seal(_:conversationKey:devices:cache:)` (all cores), per device, against
    /// `single` (target: at most 1.15× its time per device).
    static func fanOut(contentBytes: Int, key: ConversationKey, cores: Int) -> Workload {
        Workload(
            name: fanOutName(contentBytes), group: "seal", cores: cores, operationsPerIteration: devices,
            limit: RawAEAD.encryptName(Fixtures.paddedByteCount(contentByteCount: contentBytes), allCores: cores > 1),
            speedupBase: singleName(contentBytes),
            attributes: [("content_bytes", .integer(contentBytes)), ("devices", .integer(devices))],
            makeWorker: {
                let sealer = try! NotificationSealer()
                let content = Fixtures.content(byteCount: contentBytes)
                let cache = DeviceKeyCache()
                let recipients = deviceIDs().map { (device: $0, options: Fixtures.apnsOptions) }
                return Worker { iterations in
                    var total = 0
                    for _ in 0..<iterations {
                        for result in sealer.seal(content, conversationKey: key, devices: recipients, cache: cache) {
                            if case let .success(request) = result { total &+= request.body.count }
                        }
                    }
                    return total
                }
            })
    }
}

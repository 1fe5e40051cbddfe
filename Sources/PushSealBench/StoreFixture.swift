import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealPlatform

/// A device key store with `keyCount` keys in a temporary directory (one conversation per key),
/// its master key file, and the ids to look up.
final class StoreFixture: @unchecked Sendable {
    /// Keys added per transaction while building the store.
    static let chunkSize = 10_000
    /// Ids sampled from the store for lookups (cycled).
    static let sampleSize = 1_024

    let directory: String
    let masterKeyPath: String
    let masterKey: MasterKeySource
    let store: DeviceKeyStore
    let keyCount: Int
    /// Ids of stored keys, in a random order.
    let sampleIDs: [KeyID]
    /// A stored key (and its conversation) that payloads for the store figures are sealed with.
    let probeKey: ConversationKey
    let probeConversation: String
    // Only touched from the thread that prepares samples.
    private var nextMessage = 0

    init(keyCount: Int) throws(BenchError) {
        guard let directory = try? FileSystem.makeTemporaryDirectory(prefix: "pushseal-bench") else { throw BenchError("cannot create a temporary directory") }
        self.directory = directory
        self.keyCount = keyCount
        masterKeyPath = directory + "/master.key"
        masterKey = .keyFile(path: masterKeyPath, createIfMissing: true)
        do {
            store = try DeviceKeyStore(directory: directory, masterKey: masterKey, create: true)
        } catch {
            FileSystem.removeTree(directory)
            throw BenchError("cannot create a key store in \(directory): \(error)")
        }
        var generator = SystemRandomNumberGenerator()
        var sample: [KeyID] = []
        sample.reserveCapacity(Self.sampleSize)
        var probe: (ConversationKey, String)?
        var added = 0
        while added < keyCount {
            let count = min(Self.chunkSize, keyCount - added)
            let items = (added..<added + count).map {
                DeviceKeyStore.NewItem(key: ConversationKey.generate(), conversation: "conv-\($0)", epoch: 1)
            }
            do {
                try store.addAll(items)
            } catch {
                FileSystem.removeTree(directory)
                throw BenchError("cannot fill the key store: \(error)")
            }
            // Reservoir sampling: a uniform sample of ids over the whole store.
            for (offset, item) in items.enumerated() {
                let seen = added + offset
                if sample.count < Self.sampleSize {
                    sample.append(item.key.id)
                } else {
                    let slot = Int.random(in: 0...seen, using: &generator)
                    if slot < Self.sampleSize { sample[slot] = item.key.id }
                }
            }
            if probe == nil, let middle = items.dropFirst(items.count / 2).first { probe = (middle.key, middle.conversation) }
            added += count
        }
        sample.shuffle(using: &generator)
        sampleIDs = sample
        (probeKey, probeConversation) = probe!
    }

    /// A payload for a new message (never recorded in the duplicate log yet) of the probe
    /// conversation, with a content of `contentBytes` bytes.
    func nextPayload(contentBytes: Int, padBlock: Int = 256) -> [UInt8] {
        nextMessage += 1
        let content = Fixtures.content(byteCount: contentBytes, conversation: probeConversation, message: nextMessage)
        return Fixtures.payload(content, key: probeKey, padBlock: padBlock)
    }

    /// Deletes the store directory.
    func remove() {
        FileSystem.removeTree(directory)
    }
}

/// Key store figures: get a key by its id.
enum KeyStoreWorkloads {
    /// `DeviceKeyStore.lookup(_:directory:masterKey:)` (cold: open the store, read the index, load the
    /// master key, unseal, close — what an extension does per notification), or `lookup(_:)` on a
    /// kept instance (warm). Ids are cycled from a uniform sample of the store.
    static func get(_ fixture: StoreFixture, cold: Bool, label: String) -> Workload {
        Workload(
            name: "keystore.get.\(cold ? "cold" : "warm").\(label)", group: "keystore",
            limit: RawAEAD.decryptName(ConversationKey.byteCount), maximumIterations: 20_000,
            attributes: [("keys", .integer(fixture.keyCount))],
            makeWorker: {
                let ids = fixture.sampleIDs
                var position = 0
                return Worker { iterations in
                    var total = 0
                    for _ in 0..<iterations {
                        let id = ids[position]
                        position = (position + 1) % ids.count
                        let result = cold
                            ? DeviceKeyStore.lookup(id, directory: fixture.directory, masterKey: fixture.masterKey)
                            : fixture.store.lookup(id)
                        guard case let .found(stored) = result else { preconditionFailure("key store lookup failed: \(result)") }
                        total &+= Int(stored.item.epoch)
                    }
                    return total
                }
            })
    }
}

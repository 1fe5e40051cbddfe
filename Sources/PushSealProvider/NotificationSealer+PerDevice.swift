import Dispatch
public import PushSealCore
internal import PushSealPlatform

/// Device keys K_d = `ConversationKey.deviceKey(for:)`, cached per (epoch key, device): the
/// provider seals every notification under the recipient device's key, and deriving it costs
/// three HMACs (K_d, its kid, its thread-id), about as much as the rest of a small seal.
///
/// Entries are keyed by the conversation key's id (one per conversation epoch) and the device
/// key id; the cache holds at most ``capacity`` keys and is emptied (keys released and wiped)
/// when it would grow beyond that. Safe to share between threads.
public final class DeviceKeyCache: @unchecked Sendable {
    /// The most device keys held at once.
    public let capacity: Int

    private struct Entry: Hashable {
        let epochKey: KeyID
        let device: KeyID
    }

    private let lock = Lock()
    private var entries: [Entry: ConversationKey] = [:]

    /// An empty cache holding at most `capacity` device keys (default 65536, about 6 MB).
    public init(capacity: Int = 65_536) {
        self.capacity = max(1, capacity)
    }

    /// The key of `device` under `conversationKey`, derived once and then cached.
    public func deviceKey(of conversationKey: ConversationKey, for device: KeyID) -> ConversationKey {
        let entry = Entry(epochKey: conversationKey.id, device: device)
        if let cached = lock.withLock({ entries[entry] }) { return cached }
        let derived = conversationKey.deviceKey(for: device)
        lock.withLock {
            if entries.count >= capacity { entries.removeAll() }
            entries[entry] = derived
        }
        return derived
    }

    /// How many device keys are cached now.
    public var count: Int { lock.withLock { entries.count } }

    /// Drops every cached key (a conversation was rotated or a device revoked).
    public func removeAll() {
        lock.withLock { entries.removeAll() }
    }
}

extension NotificationSealer {
    /// Seals `content` for one device (SPEC §4.4): under the device's key K_d, derived from the
    /// conversation key `conversationKey` (K, which never leaves the provider) and the device key
    /// id `device` — through `cache` when given. The envelope's kid and the APNs thread-id are
    /// the device's own, so two devices of one conversation share nothing on the wire.
    public func seal<Options: TransportOptions>(
        _ content: NotificationContent, conversationKey: ConversationKey, device: KeyID, options: Options, cache: DeviceKeyCache? = nil
    ) throws(ProviderError) -> Options.SealedRequest {
        let key = cache?.deviceKey(of: conversationKey, for: device) ?? conversationKey.deviceKey(for: device)
        return try seal(content, with: key, options: options)
    }

    /// Fan-out: seals one `content` for many devices of its conversation on all cores, each under
    /// its own K_d (through `cache` when given), with the options given for it (its token, its
    /// in-band bundle). Results are in input order; an invalid item fails only itself. Each thread
    /// claims devices as it goes (like ``seal(batch:keyProvider:)``) and seals with each device's
    /// key directly: every key is used by one thread only, so no private copies are made.
    public func seal<Options: TransportOptions>(
        _ content: NotificationContent, conversationKey: ConversationKey, devices: [(device: KeyID, options: Options)],
        cache: DeviceKeyCache? = nil
    ) -> [Result<Options.SealedRequest, ProviderError>] {
        let count = devices.count
        guard count > 0 else { return [] }
        let claimSizes = Self.batchClaimSizes
        let threads = min(Processors.onlineCount, (count + claimSizes.lowerBound - 1) / claimSizes.lowerBound)
        let claims = BatchClaims(count: count, threads: threads, claimSizes: claimSizes)
        var results = [Result<Options.SealedRequest, ProviderError>](repeating: .failure(.internalInconsistency("not sealed")), count: count)
        results.withUnsafeMutableBufferPointer { output in
            nonisolated(unsafe) let output = output
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                // A private copy of K for the derivations of this thread (a cache hit does not touch it).
                let root = conversationKey.privateCopy()
                while let claim = claims.next() {
                    for index in claim {
                        let device = devices[index].device
                        let key = cache?.deviceKey(of: root, for: device) ?? root.deviceKey(for: device)
                        output[index] = Result { () throws(ProviderError) in try seal(content, with: key, options: devices[index].options) }
                    }
                }
            }
        }
        return results
    }
}

import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore

/// The device key store as the receiver's key source: the store file in a directory shared by the
/// app and its extension, and the store master key's source.
///
/// Every call opens the file, runs one short transaction and closes it (Docs/KEY-STORE.md), so
/// nothing is held between notifications. The lookup reads the key-id index before it needs the
/// master key: an id the store does not hold is `unknown_key` even while the master key is
/// unavailable, and only a held id can be `store_locked` (SPEC §10.2, steps 5–6).
public struct KeyStoreKeySource: ReceiverKeySource {
    /// The key store directory.
    public let directory: String
    /// Where the store master key comes from.
    public let masterKey: MasterKeySource
    /// How long duplicate-log entries are kept: entries older than this are pruned each time a
    /// delivery is recorded. Use the receiver's freshness window (maxAge + maxFutureSkew).
    public let duplicateLogRetention: Int64
    /// The store's clock (the duplicate log's time).
    public let clock: SecondsClock

    /// A key source over the store in `directory`.
    public init(
        directory: String, masterKey: MasterKeySource,
        duplicateLogRetention: Int64 = ReceiverConfiguration.defaultMaximumAge + ReceiverConfiguration.defaultMaximumFutureSkew,
        clock: @escaping SecondsClock = systemClock
    ) {
        self.directory = directory
        self.masterKey = masterKey
        self.duplicateLogRetention = duplicateLogRetention
        self.clock = clock
    }

    /// Looks the id up in the store's index, then unseals only that key. The key's not-after time
    /// (bound into its sealed row, so an edit makes the row unreadable) is its retire-by time.
    public func lookupKey(_ id: KeyID) -> KeyLookupResult {
        switch DeviceKeyStore.lookup(id, directory: directory, masterKey: masterKey) {
        case let .found(stored): .found(stored.key, conversation: stored.item.conversation, retireBy: stored.item.notAfter)
        case .notFound: .notFound
        case let .unavailable(error): .locked("\(error)")
        }
    }

    /// Checks and records (cid, mid) with a keyed digest of the envelope: the pair again with a
    /// different envelope is ``DeliveryRecord/conflict``.
    public func markDelivered(conversation: String, messageID: String, envelope: [UInt8]) -> DeliveryRecord {
        do throws(KeyDirectoryError) {
            // Opening the store and recording, in one connection when the store is current.
            let check = try DeviceKeyStore.recordDelivery(
                conversation: conversation, messageID: messageID, envelope: envelope, pruningOlderThan: duplicateLogRetention,
                directory: directory, masterKey: masterKey, clock: clock)
            switch check {
            case .first: return .first
            case .duplicate: return .duplicate
            case .conflict: return .conflict
            }
        } catch {
            return .unavailable("\(error)")
        }
    }

    /// Installs the bundle into the store (its device key, pinned provider keys and conversation
    /// records decide) when it carries the envelope's key; a store that cannot be opened is `store_locked`.
    public func installKeyBundle(_ bundle: KeyBundle, envelopeKeyID: KeyID) -> KeyBundleOutcome {
        do throws(KeyDirectoryError) {
            let store = try DeviceKeyStore(directory: directory, masterKey: masterKey, clock: clock)
            return KeyBundleOutcome(Result { () throws(KeyBundleError) in try store.install(bundle, expectedKeyID: envelopeKeyID) })
        } catch {
            return .refused(.storeLocked("\(error)"))
        }
    }
}

import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealReceiver

/// Receiver figures: payload bytes (an APNs body) to the display model (`ReceivedNotification`).
enum OpenWorkloads {
    /// Distinct payloads cycled through by the in-memory figure (distinct mids, as real traffic).
    static let payloadPoolSize = 64

    static func keyName(_ contentBytes: Int) -> String { "open.key.\(contentBytes)" }

    /// `Receiver.open(.json(_:))` over a `SingleConversationKey` (the key in memory).
    static func inMemory(contentBytes: Int, key: ConversationKey) -> Workload {
        let padded = Fixtures.paddedByteCount(contentByteCount: contentBytes)
        return Workload(
            name: keyName(contentBytes), group: "open", limit: RawAEAD.decryptName(padded),
            attributes: [("content_bytes", .integer(contentBytes)), ("padded_bytes", .integer(padded))],
            makeWorker: {
                let payloads = (0..<payloadPoolSize).map {
                    Fixtures.payload(Fixtures.content(byteCount: contentBytes, message: $0), key: key)
                }
                let receiver = Receiver(
                    keySource: SingleConversationKey(key: key, conversation: Fixtures.conversation),
                    configuration: ReceiverConfiguration(clock: { Fixtures.sentAt }))
                return Worker { iterations in
                    var total = 0
                    for index in 0..<iterations {
                        let shown = receiver.open(.json(payloads[index % payloadPoolSize]))
                        precondition(shown.outcome == .decrypted, "open failed: \(shown.reason?.rawValue ?? "?")")
                        total &+= shown.sentAt.map(Int.init) ?? 0
                    }
                    return total
                }
            })
    }

    /// `Receiver.open(.json(_:))` through the device key store: `cold` opens the store per
    /// notification as an extension does (`KeyStoreKeySource`: a read transaction for the key,
    /// then a write transaction recording (cid, mid) in the duplicate log); warm keeps one
    /// `DeviceKeyStore` instance. Every notification is new (its first delivery is recorded).
    static func throughStore(_ fixture: StoreFixture, cold: Bool, contentBytes: Int) -> Workload {
        let padded = Fixtures.paddedByteCount(contentByteCount: contentBytes)
        return Workload(
            name: "open.store.\(cold ? "cold" : "warm").\(contentBytes)", group: "open", limit: RawAEAD.decryptName(padded),
            maximumIterations: 2_000,
            attributes: [("content_bytes", .integer(contentBytes)), ("padded_bytes", .integer(padded)), ("keys", .integer(fixture.keyCount))],
            makeWorker: {
                let keySource: any ReceiverKeySource = cold
                    ? KeyStoreKeySource(directory: fixture.directory, masterKey: fixture.masterKey)
                    : WarmStoreKeySource(store: fixture.store)
                let receiver = Receiver(keySource: keySource, configuration: ReceiverConfiguration(clock: { Fixtures.sentAt }))
                let payloads = PayloadQueue()
                return Worker(
                    prepare: { iterations in
                        payloads.fill(iterations) { fixture.nextPayload(contentBytes: contentBytes) }
                    },
                    run: { iterations in
                        var total = 0
                        for index in 0..<iterations {
                            let shown = receiver.open(.json(payloads.items[index]))
                            precondition(shown.outcome == .decrypted && !shown.isDuplicate,
                                         "open through the store failed: \(shown.reason?.rawValue ?? "duplicate") \(shown.diagnostic ?? "")")
                            total &+= shown.sentAt.map(Int.init) ?? 0
                        }
                        return total
                    })
            })
    }
}

/// Payloads prepared before a sample.
final class PayloadQueue {
    var items: [[UInt8]] = []
    func fill(_ count: Int, _ make: () -> [UInt8]) {
        items.removeAll(keepingCapacity: true)
        for _ in 0..<count { items.append(make()) }
    }
}

/// A kept `DeviceKeyStore` instance as the receiver's key source (the store's own lookup and duplicate
/// log, without re-opening the store for every call).
struct WarmStoreKeySource: ReceiverKeySource {
    let store: DeviceKeyStore

    func lookupKey(_ id: KeyID) -> KeyLookupResult {
        switch store.lookup(id) {
        case let .found(stored): .found(stored.key, conversation: stored.item.conversation, retireBy: stored.item.notAfter)
        case .notFound: .notFound
        case let .unavailable(error): .locked("\(error)")
        }
    }

    func markDelivered(conversation: String, messageID: String, envelope: [UInt8]) -> DeliveryRecord {
        do throws(KeyDirectoryError) {
            return try store.recordDelivery(conversation: conversation, messageID: messageID) ? .duplicate : .first
        } catch {
            return .unavailable("\(error)")
        }
    }
}

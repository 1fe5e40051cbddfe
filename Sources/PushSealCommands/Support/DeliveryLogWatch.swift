import PushSealCore
import PushSealReceiver

/// A key source that forwards to another one and remembers whether the duplicate log could not
/// be updated, so `pushseal open --store` can warn about it (the receiver itself delivers such a
/// notification unflagged, as it must). Adds no store access of its own.
final class DeliveryLogWatch: ReceiverKeySource, @unchecked Sendable {
    // @unchecked: `open` runs the receiver synchronously on one thread; nothing else touches
    // `unavailableReason`.

    /// The source that does the work.
    let base: any ReceiverKeySource
    /// Why recording the delivery failed, when it did.
    private(set) var unavailableReason: String?

    /// Watches `base`.
    init(_ base: any ReceiverKeySource) {
        self.base = base
    }

    func lookupKey(_ id: KeyID) -> KeyLookupResult {
        base.lookupKey(id)
    }

    func markDelivered(conversation: String, messageID: String, envelope: [UInt8]) -> DeliveryRecord {
        watch(base.markDelivered(conversation: conversation, messageID: messageID, envelope: envelope))
    }

    private func watch(_ record: DeliveryRecord) -> DeliveryRecord {
        if case let .unavailable(why) = record { unavailableReason = why }
        return record
    }

    func installKeyBundle(_ bundle: KeyBundle, envelopeKeyID: KeyID) -> KeyBundleOutcome {
        base.installKeyBundle(bundle, envelopeKeyID: envelopeKeyID)
    }
}

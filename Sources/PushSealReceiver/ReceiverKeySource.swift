import PushSealCore

/// What a key source knows about one key id (SPEC 10.2 steps 5 and 6).
public enum KeyLookupResult: Sendable {
    /// The key, the conversation it is stored for (the content's `cid` must equal it), and its
    /// authenticated retire-by time (the last second it was current; nil while it is current).
    /// A notification whose `ts` is later than `retireBy` plus the receiver's future-skew
    /// allowance falls back with `retired_key` (SPEC §10.2 step 11).
    case found(ConversationKey, conversation: String, retireBy: Int64? = nil)
    /// No key with this id: `unknown_key`. A source that can tell it does not hold the id says
    /// this even while locked (SPEC Appendix A.2).
    case notFound
    /// The source holds the id, or cannot even read its index, but cannot read the key now
    /// (device locked, master key unavailable, I/O error): `store_locked`. The string says why.
    case locked(String)
}

/// The outcome of recording `(cid, mid)` in a duplicate log.
public enum DeliveryRecord: Sendable, Equatable {
    /// First time this pair is seen; it is now recorded.
    case first
    /// The pair was already recorded: the notification is flagged `duplicate`.
    case duplicate
    /// The pair was already recorded with a different envelope: flagged `duplicate` and
    /// `conflict` (a re-sealed resend, or a key holder who claimed the message id first; SPEC §10.4).
    case conflict
    /// The log cannot be read or written now; the notification is delivered unflagged. The string
    /// says why.
    case unavailable(String)
}

/// Where a receiver finds conversation keys and records deliveries: the device key store, or an
/// in-memory key (``SingleConversationKey``).
///
/// Method names differ from the key store's own API (`key(for:)`, `recordDelivery(…)`) so that
/// the store can conform without overloads:
///
/// ```swift
/// extension DeviceKeyStore: ReceiverKeySource {
///     public func lookupKey(_ id: KeyID) -> KeyLookupResult {
///         do {
///             let stored = try key(for: id)
///             return .found(stored.key, conversation: stored.item.conversation, retireBy: stored.item.notAfter)
///         } catch .itemNotFound {
///             return .notFound
///         } catch {
///             return .locked("\(error)")
///         }
///     }
///     public func markDelivered(conversation: String, messageID: String, envelope: [UInt8]) -> DeliveryRecord {
///         do {
///             switch try recordDelivery(conversation: conversation, messageID: messageID, envelope: envelope) {
///             case .first: return .first
///             case .duplicate: return .duplicate
///             case .conflict: return .conflict
///             }
///         } catch { return .unavailable("\(error)") }
///     }
/// }
/// ```
public protocol ReceiverKeySource: Sendable {
    /// Looks up the one key named by an envelope's header. Never returns another key of the
    /// conversation: the receiver does not trial-decrypt.
    func lookupKey(_ id: KeyID) -> KeyLookupResult

    /// Checks and installs an in-band key bundle (SPEC §16.5) before the envelope is opened; a
    /// bundle whose kid is not `envelopeKeyID` (the envelope's) is `envelope_mismatch` and is not
    /// installed. The default refuses it with `store_locked`: a source without a device key cannot install.
    func installKeyBundle(_ bundle: KeyBundle, envelopeKeyID: KeyID) -> KeyBundleOutcome

    /// Atomically checks and records `(conversation, messageID)` in the duplicate log, keeping a
    /// digest of the envelope bytes with the first record of the pair: ``DeliveryRecord/conflict``
    /// when the pair comes again with a different envelope (SPEC §10.4). Called only after every
    /// check passed (failed opens are never recorded). Compare by UTF-8 bytes. A source without
    /// envelope digests may ignore `envelope` (it then never reports a conflict).
    func markDelivered(conversation: String, messageID: String, envelope: [UInt8]) -> DeliveryRecord
}

extension ReceiverKeySource {
    /// Refuses: this key source has no device key and cannot store keys.
    public func installKeyBundle(_ bundle: KeyBundle, envelopeKeyID: KeyID) -> KeyBundleOutcome {
        .refused(.storeLocked("this key source does not install key bundles"))
    }
}

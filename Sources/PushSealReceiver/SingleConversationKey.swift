internal import PushSealPlatform
import PushSealCore
import PushSealJSON

/// An in-memory key source holding one conversation key, with its own duplicate log.
///
/// For tests, demos and the CLI's `--key K --conversation CID` mode. It can be locked (to model a
/// keychain that is unavailable before first unlock) and wiped (to model logout). Thread-safe.
public final class SingleConversationKey: ReceiverKeySource, @unchecked Sendable {
    private let lock = Lock()
    // Guarded by `lock`.
    private var key: ConversationKey?
    private var lockReason: String?
    /// Each recorded pair with its first envelope (nil when recorded without one). The envelope
    /// itself rather than a digest: it is public bytes the receiver already holds (no copy, no
    /// hashing on the open path), compared byte for byte only when the pair comes again.
    private var delivered: [LogEntry: [UInt8]?] = [:]
    private var logUnavailableReason: String?

    /// The conversation the key is stored for.
    public let conversation: String
    /// The id of the key (kept after ``wipe()``, so a wiped source still answers `notFound` for it).
    public let keyID: KeyID

    /// The key's retire-by time (the last second it was current), nil while it is current.
    public let retireBy: Int64?

    /// A source holding `key` for `conversation`, retired at `retireBy` when given (notifications
    /// sent later than that plus the future-skew allowance fall back with `retired_key`).
    public init(key: ConversationKey, conversation: String, retireBy: Int64? = nil) {
        self.key = key
        self.conversation = conversation
        self.keyID = key.id
        self.retireBy = retireBy
    }

    /// Makes the key unreadable (`reason` is reported with `store_locked`), or readable again with nil.
    /// The key id stays known, so other ids still report `unknown_key` (SPEC Appendix A.2).
    public func setLocked(_ reason: String?) {
        lock.withLock { lockReason = reason }
    }

    /// Makes the duplicate log unavailable (`reason`), or available again with nil.
    public func setDeliveryLogUnavailable(_ reason: String?) {
        lock.withLock { logUnavailableReason = reason }
    }

    /// Forgets the key and the duplicate log, as a logout does. Every lookup is `unknown_key` afterwards.
    public func wipe() {
        lock.withLock {
            key = nil
            delivered.removeAll()
        }
    }

    /// True while the key is held (not wiped).
    public var holdsKey: Bool { lock.withLock { key != nil } }

    /// Records `(conversation, messageID)` as already delivered (for example from a test vector's
    /// `previouslySeen`), with `envelope` when given (a later delivery of the pair with another
    /// envelope is then a conflict). Returns false if it was already recorded.
    @discardableResult
    public func recordPreviousDelivery(conversation: String, messageID: String, envelope: [UInt8]? = nil) -> Bool {
        let entry = Self.logEntry(conversation: conversation, messageID: messageID)
        return lock.withLock {
            guard delivered[entry] == nil else { return false }
            delivered[entry] = .some(envelope)
            return true
        }
    }

    // MARK: ReceiverKeySource

    /// `.found` for this key's id unless locked or wiped; `.notFound` for any other id.
    public func lookupKey(_ id: KeyID) -> KeyLookupResult {
        lock.withLock {
            guard id == keyID, let key else { return .notFound }
            if let lockReason { return .locked(lockReason) }
            return .found(key, conversation: conversation, retireBy: retireBy)
        }
    }

    /// Checks and records the pair with its envelope: ``DeliveryRecord/conflict`` when the pair
    /// was recorded with a different envelope.
    public func markDelivered(conversation: String, messageID: String, envelope: [UInt8]) -> DeliveryRecord {
        record(Self.logEntry(conversation: conversation, messageID: messageID), envelope: envelope)
    }

    private func record(_ entry: LogEntry, envelope: [UInt8]) -> DeliveryRecord {
        lock.withLock {
            if let logUnavailableReason { return .unavailable(logUnavailableReason) }
            guard let recorded = delivered[entry] else {
                delivered[entry] = .some(envelope)
                return .first
            }
            guard let recorded else { return .duplicate }
            // One memcmp (Array's == compares element by element; the bytes are public).
            let same = recorded.count == envelope.count
                && recorded.withUnsafeBytes { a in envelope.withUnsafeBytes { b in memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 } }
            return same ? .duplicate : .conflict
        }
    }

    /// The log entry of the pair (compared and hashed by UTF-8 bytes).
    private static func logEntry(conversation: String, messageID: String) -> LogEntry {
        LogEntry(conversation: conversation, messageID: messageID)
    }

    /// A log entry: the pair itself, without copying its bytes. Equal when both strings have the
    /// same UTF-8 bytes (never Unicode equivalence). Hashed by the message id's bytes and the
    /// conversation's length only: equal entries hash equally, and the pairs of one source
    /// nearly always share their conversation (the receiver records only the key's own).
    private struct LogEntry: Hashable {
        let conversation: String
        let messageID: String

        static func == (a: LogEntry, b: LogEntry) -> Bool {
            UTF8Bytes.equal(a.messageID, b.messageID) && UTF8Bytes.equal(a.conversation, b.conversation)
        }

        func hash(into hasher: inout Hasher) {
            var messageID = messageID
            hasher.combine(conversation.utf8.count)
            messageID.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }
}

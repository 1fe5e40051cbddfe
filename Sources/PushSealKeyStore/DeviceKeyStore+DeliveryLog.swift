import PushSealCore
import PushSealKeyDirectory
internal import PushSealPlatform

/// What recording a delivery found (SPEC §10.4).
public enum DeliveryCheck: Sendable, Equatable {
    /// The pair was not in the log; it is recorded now.
    case first
    /// The pair was recorded before (with the same envelope, or without one).
    case duplicate
    /// The pair was recorded before with a different envelope.
    case conflict
}

/// The receiver's duplicate log (SPEC §10.4): HMACs of (cid, mid) with the time first seen and a
/// keyed digest of the first envelope.
extension DeviceKeyStore {
    /// Atomically checks and records (conversation, messageID) at `clock()`: one `BEGIN IMMEDIATE`
    /// transaction with `INSERT OR IGNORE`. Returns true when the pair was already recorded (the
    /// first recording time is kept). Only an HMAC of the pair under a store-derived key is
    /// stored, never the ids.
    ///
    /// With `retention`, entries recorded more than `retention` seconds ago are deleted in the same
    /// transaction (receivers pass their freshness window, maxAge + maxFutureSkew: anything older
    /// would be rejected as stale before the log is consulted).
    public func recordDelivery(
        conversation: String, messageID: String, pruningOlderThan retention: Int64? = nil
    ) throws(KeyDirectoryError) -> Bool {
        try recordDelivery(conversation: conversation, messageID: messageID, envelope: nil, pruningOlderThan: retention) != .first
    }

    /// ``recordDelivery(conversation:messageID:pruningOlderThan:)`` that also keeps a keyed digest
    /// of `envelope` with the first record of the pair: the same pair with a different envelope
    /// is ``DeliveryCheck/conflict``. Without `envelope` (or for a pair recorded without one) a
    /// repeat is a plain duplicate.
    public func recordDelivery(
        conversation: String, messageID: String, envelope: [UInt8]?, pruningOlderThan retention: Int64? = nil
    ) throws(KeyDirectoryError) -> DeliveryCheck {
        if let retention, retention < 0 { throw .invalidArgument("retention \(retention) is negative") }
        let tag = ItemSealing.deliveryTag(conversation: conversation, messageID: messageID, logKey: deliveryLogKey)
        let envelopeTag = envelope.map { ItemSealing.envelopeTag($0, logKey: deliveryLogKey) }
        let now = clock()
        return try session(.writeLosableToPowerLoss) { connection throws(KeyDirectoryError) -> DeliveryCheck in
            try Self.writeDelivery(tag: tag, envelopeTag: envelopeTag, now: now, pruningOlderThan: retention, connection)
        }
    }

    /// `DeviceKeyStore(directory:masterKey:clock:)` followed by
    /// ``recordDelivery(conversation:messageID:pruningOlderThan:)``, for a receiver that opens the
    /// store once per notification: for a store at the current format, the checks of both (file,
    /// format version, master key against the verifier, re-read header) and the write run in one
    /// connection and one `BEGIN IMMEDIATE` transaction, instead of a connection for opening and
    /// another for the write. Any other case — and any error except a lock held beyond the busy
    /// retries — takes those two steps, which decide and report exactly as before.
    public static func recordDelivery(
        conversation: String, messageID: String, pruningOlderThan retention: Int64? = nil,
        directory: String, masterKey source: MasterKeySource, clock: @escaping SecondsClock = systemClock
    ) throws(KeyDirectoryError) -> Bool {
        try recordDelivery(
            conversation: conversation, messageID: messageID, envelope: nil, pruningOlderThan: retention, directory: directory,
            masterKey: source, clock: clock) != .first
    }

    /// The static ``recordDelivery(conversation:messageID:pruningOlderThan:directory:masterKey:clock:)``
    /// with the envelope digest of ``recordDelivery(conversation:messageID:envelope:pruningOlderThan:)``.
    public static func recordDelivery(
        conversation: String, messageID: String, envelope: [UInt8]?, pruningOlderThan retention: Int64? = nil,
        directory: String, masterKey source: MasterKeySource, clock: @escaping SecondsClock = systemClock
    ) throws(KeyDirectoryError) -> DeliveryCheck {
        if let check = try recordDeliveryInOneTransaction(
            conversation: conversation, messageID: messageID, envelope: envelope, retention: retention, directory: directory,
            source: source, clock: clock) {
            return check
        }
        let store = try DeviceKeyStore(directory: directory, masterKey: source, clock: clock)
        return try store.recordDelivery(conversation: conversation, messageID: messageID, envelope: envelope, pruningOlderThan: retention)
    }

    /// The one-transaction path; nil means "take the two-step path". Throws only SQLITE_BUSY that
    /// survived the retries (repeating the work would double the wait, up to ~30 s).
    private static func recordDeliveryInOneTransaction(
        conversation: String, messageID: String, envelope: [UInt8]?, retention: Int64?, directory: String, source: MasterKeySource,
        clock: SecondsClock
    ) throws(KeyDirectoryError) -> DeliveryCheck? {
        if let retention, retention < 0 { return nil }
        guard !directory.isEmpty, case .directory = FileSystem.status(directory) else { return nil }
        let path = FileSystem.join(directory, fileName)
        guard case .regularFile = FileSystem.status(path) else { return nil }
        guard let masterKey = try? source.load(mayCreate: false), let connection = try? connect(path) else { return nil }
        defer { connection.close() }
        preferRollbackJournal(connection)
        let logKey = ItemSealing.deliveryLogKey(masterKey: masterKey)
        let tag = ItemSealing.deliveryTag(conversation: conversation, messageID: messageID, logKey: logKey)
        let envelopeTag = envelope.map { ItemSealing.envelopeTag($0, logKey: logKey) }
        let now = clock()
        do {
            return try connection.transaction(.writeLosableToPowerLoss) { () throws(KeyDirectoryError) -> DeliveryCheck in
                let header = try Schema.readHeader(connection)
                // Uninitialized, foreign, newer or older (to be migrated by the opening path)
                // files, and a wrong master key, throw here: the two-step path reports them.
                try requireCurrent(header, path: path)
                guard ItemSealing.verify(header.verifier!, masterKey: masterKey) else { throw KeyDirectoryLimits.wrongKey(source) }
                return try writeDelivery(tag: tag, envelopeTag: envelopeTag, now: now, pruningOlderThan: retention, connection)
            }
        } catch let error {
            if case let .sqlite(code, _, _) = error, code == 5 || code == 6 { throw error }   // SQLITE_BUSY, SQLITE_LOCKED
            return nil
        }
    }

    /// Prunes (with `retention`) and records `tag` (with `envelopeTag`) at `now`; a repeat is a
    /// conflict when both the recorded and the new envelope digest exist and differ. Runs inside
    /// a write transaction on `connection`.
    private static func writeDelivery(
        tag: [UInt8], envelopeTag: [UInt8]?, now: Int64, pruningOlderThan retention: Int64?, _ connection: SQLiteConnection
    ) throws(KeyDirectoryError) -> DeliveryCheck {
        if let retention {
            try connection.withStatement("DELETE FROM deliveries WHERE seen_at < ?1") { statement throws(KeyDirectoryError) in
                let (cutoff, overflow) = now.subtractingReportingOverflow(retention)
                try statement.bind(1, overflow ? Int64.min : cutoff)
                _ = try statement.step()
            }
        }
        try connection.withStatement("INSERT OR IGNORE INTO deliveries (tag, seen_at, envelope) VALUES (?1, ?2, ?3)") {
            statement throws(KeyDirectoryError) in
            try statement.bind(1, blob: tag)
            try statement.bind(2, now)
            try statement.bind(3, optionalBlob: envelopeTag)
            _ = try statement.step()
        }
        if connection.changes == 1 { return .first }
        guard let envelopeTag else { return .duplicate }
        let recorded = try connection.withStatement("SELECT envelope FROM deliveries WHERE tag = ?1") { statement throws(KeyDirectoryError) in
            try statement.bind(1, blob: tag)
            return try statement.step() && !statement.isNull(0) ? statement.bytes(0) : nil
        }
        guard let recorded else { return .duplicate }
        let same = recorded.count == envelopeTag.count
            && recorded.withUnsafeBytes { r in envelopeTag.withUnsafeBytes { e in SecureMemory.constantTimeEqual(r, e) } }
        return same ? .duplicate : .conflict
    }

    /// Whether (conversation, messageID) is in the duplicate log, without recording it.
    public func hasDelivery(conversation: String, messageID: String) throws(KeyDirectoryError) -> Bool {
        let tag = ItemSealing.deliveryTag(conversation: conversation, messageID: messageID, logKey: deliveryLogKey)
        return try session(.read) { connection throws(KeyDirectoryError) -> Bool in
            try connection.withStatement("SELECT 1 FROM deliveries WHERE tag = ?1") { statement throws(KeyDirectoryError) in
                try statement.bind(1, blob: tag)
                return try statement.step()
            }
        }
    }

    /// Deletes duplicate-log entries recorded more than `seconds` ago (`seen_at < now - seconds`);
    /// returns how many. Receivers use their freshness window (maxAge + maxFutureSkew).
    @discardableResult
    public func pruneDeliveries(olderThan seconds: Int64) throws(KeyDirectoryError) -> Int {
        guard seconds >= 0 else { throw .invalidArgument("age \(seconds) is negative") }
        let (difference, overflow) = clock().subtractingReportingOverflow(seconds)
        let cutoff = overflow ? Int64.min : difference
        return try session(.write) { connection throws(KeyDirectoryError) -> Int in
            try connection.withStatement("DELETE FROM deliveries WHERE seen_at < ?1") { statement throws(KeyDirectoryError) in
                try statement.bind(1, cutoff)
                _ = try statement.step()
            }
            return connection.changes
        }
    }

    /// Number of entries in the duplicate log.
    public func deliveryCount() throws(KeyDirectoryError) -> Int {
        try session(.read) { connection throws(KeyDirectoryError) -> Int in
            try connection.withStatement("SELECT count(*) FROM deliveries") { statement throws(KeyDirectoryError) in
                _ = try statement.step()
                return Int(statement.int64(0))
            }
        }
    }
}

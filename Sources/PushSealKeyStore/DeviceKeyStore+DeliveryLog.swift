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
/// keyed digest of the first envelope, in the store's file `pushseal-deliveries`
/// (``DeliveryLogFile``, Docs/KEY-STORE.md §2.1), written without any sync: a mark survives a
/// killed process, not necessarily a power loss (§4).
extension DeviceKeyStore {
    /// Atomically checks and records (conversation, messageID) at `clock()`, under an exclusive
    /// lock on the log. Returns true when the pair was already recorded (the first recording
    /// time is kept). Only an HMAC of the pair under a store-derived key is stored, never the ids.
    ///
    /// With `retention`, entries recorded more than `retention` seconds ago are pruned in the
    /// same step (receivers pass their freshness window, maxAge + maxFutureSkew: anything older
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
        return try deliveryLog.mark(tag: tag, envelopeTag: envelopeTag, now: clock(), retention: retention, confirmCurrent: confirmCurrent)
    }

    /// `DeviceKeyStore(directory:masterKey:clock:)` followed by
    /// ``recordDelivery(conversation:messageID:pruningOlderThan:)``, for a receiver that opens the
    /// store once per notification: for a store at the current format, the checks of both (file,
    /// format version, master key against the verifier) run in one connection and one read
    /// transaction, then the pair is marked in the log. Any other case — and any error except a
    /// lock held beyond the busy retries — takes those two steps, which decide and report
    /// exactly as before.
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

    /// The one-transaction path; nil means "take the two-step path". Once the store checked out,
    /// the mark's own result or error is final (the two-step path would mark the same way).
    /// Throws only SQLITE_BUSY that survived the retries (repeating the work would double the
    /// wait, up to ~30 s) and the log's errors.
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
        // The store's header and verifier, in one read transaction (also the log's check when
        // it finds another key's log or none).
        let checkStore = { () throws(KeyDirectoryError) in
            try connection.transaction(.read) { () throws(KeyDirectoryError) in
                let header = try Schema.readHeader(connection)
                // Uninitialized, foreign, newer or older (to be migrated by the opening path)
                // files, and a wrong master key, throw here: the two-step path reports them.
                try requireCurrent(header, path: path)
                guard ItemSealing.verify(header.verifier!, masterKey: masterKey) else { throw KeyDirectoryLimits.wrongKey(source) }
            }
        }
        do {
            try checkStore()
        } catch let error {
            if case let .sqlite(code, _, _) = error, code == 5 || code == 6 { throw error }   // SQLITE_BUSY, SQLITE_LOCKED
            return nil
        }
        let logKey = ItemSealing.deliveryLogKey(masterKey: masterKey)
        let tag = ItemSealing.deliveryTag(conversation: conversation, messageID: messageID, logKey: logKey)
        let envelopeTag = envelope.map { ItemSealing.envelopeTag($0, logKey: logKey) }
        return try DeliveryLogFile(directory: directory, logKey: logKey).mark(
            tag: tag, envelopeTag: envelopeTag, now: clock(), retention: retention, confirmCurrent: checkStore)
    }

    /// Whether (conversation, messageID) is in the duplicate log, without recording it.
    public func hasDelivery(conversation: String, messageID: String) throws(KeyDirectoryError) -> Bool {
        let tag = ItemSealing.deliveryTag(conversation: conversation, messageID: messageID, logKey: deliveryLogKey)
        return try deliveryLog.contains(tag, confirmCurrent: confirmCurrent)
    }

    /// Deletes duplicate-log entries recorded more than `seconds` ago (`seen_at < now - seconds`);
    /// returns how many. Receivers use their freshness window (maxAge + maxFutureSkew).
    @discardableResult
    public func pruneDeliveries(olderThan seconds: Int64) throws(KeyDirectoryError) -> Int {
        guard seconds >= 0 else { throw .invalidArgument("age \(seconds) is negative") }
        let (difference, overflow) = clock().subtractingReportingOverflow(seconds)
        return try deliveryLog.prune(before: overflow ? Int64.min : difference, confirmCurrent: confirmCurrent)
    }

    /// Number of entries in the duplicate log.
    public func deliveryCount() throws(KeyDirectoryError) -> Int {
        try deliveryLog.count(confirmCurrent: confirmCurrent)
    }

    /// The log's check that this instance is still the store's (a read call: the file, its
    /// format and its verifier), run when the log is missing or names another master key.
    var confirmCurrent: DeliveryLogFile.ConfirmCurrent {
        { () throws(KeyDirectoryError) in try self.session(.read) { _ throws(KeyDirectoryError) in } }
    }

    /// Format 8 → 9 (inside the migrating transaction): the `deliveries` rows go into the log
    /// file (inserting is idempotent: a crash before the commit leaves format 8, and the
    /// migration runs again), then the table is dropped (`secure_delete` zeroes its pages).
    static func moveDeliveriesToLog(_ connection: SQLiteConnection, directory: String, masterKey: MasterKey) throws(KeyDirectoryError) {
        let hasTable = try connection.withStatement("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'deliveries'") {
            statement throws(KeyDirectoryError) in try statement.step() && statement.int64(0) == 1
        }
        // A format-8 file without the table (damaged, or made by hand) has nothing to move; the
        // log file is created all the same.
        var records: [DeliveryLogLayout.Record] = []
        if hasTable {
            try connection.withStatement("SELECT tag, seen_at, envelope FROM deliveries") { statement throws(KeyDirectoryError) in
                while try statement.step() {
                    let envelope = statement.isNull(2) ? nil : statement.bytes(2)
                    records.append(.init(tag: statement.bytes(0), seenAt: statement.int64(1), envelopeTag: envelope?.count == 32 ? envelope : nil))
                }
            }
        }
        // A log left under another key (an earlier store in this directory) is stale: reset.
        try DeliveryLogFile(directory: directory, logKey: ItemSealing.deliveryLogKey(masterKey: masterKey))
            .insertAll(records.filter { $0.tag.count == 32 }, confirmCurrent: {})
        if hasTable { try connection.execute("DROP TABLE deliveries") }
    }
}

import PushSealCore

/// What a write transaction of a key directory locks (and, on PostgreSQL, announces at commit).
package enum KeyDirectoryWriteScope: Sendable, Equatable {
    /// One conversation's rows and records (PostgreSQL: the conversation's advisory lock, and a
    /// NOTIFY of it at commit).
    case conversation(String)
    /// Rows of several conversations (a purge): the rules lock each one with
    /// ``KeyDirectoryTransaction/lock(conversation:)`` before touching it, in byte order.
    case conversations
    /// Provider key pairs and device registrations (PostgreSQL: the identities' advisory lock).
    case identities
    /// Everything, the master-key verifier first (a master-key rotation; PostgreSQL: the
    /// migration lock and the verifier row `FOR UPDATE`, so every other write waits and then stops).
    case masterKey
}

/// Where a key directory keeps its rows: the SQLite file or the PostgreSQL server. The rules
/// (``KeyDirectoryRules``) are written once over it, the way GRDB writes `write` once over its
/// queue and its pool; a backend supplies SQL, connections, locks, retries and migrations.
///
/// `write` runs `body` in one write transaction that holds the scope's locks and checks that the
/// directory is still sealed under this instance's master key; it may run `body` again after a
/// lost connection (then ``KeyDirectoryTransaction/isRetry`` is true: the earlier attempt may
/// have committed). `read` runs `body` in one read transaction (one snapshot).
package protocol KeyDirectoryStorage: Sendable {
    /// The backend's transaction.
    associatedtype Transaction: KeyDirectoryTransaction

    /// Runs `body` in one read transaction.
    func read<R>(_ body: (Transaction) throws(KeyDirectoryError) -> R) throws(KeyDirectoryError) -> R

    /// Runs `body` in one write transaction holding `scope`'s locks.
    func write<R>(_ scope: KeyDirectoryWriteScope, _ body: (Transaction) throws(KeyDirectoryError) -> R) throws(KeyDirectoryError) -> R
}

/// A sealed identity row as stored (provider key pair, device key, pinned provider key): what the
/// sealed blob is bound to, and the blob.
package typealias SealedIdentityRow = (binding: IdentitySealing.Binding, sealed: [UInt8])

/// The rows one transaction of a key directory reads and writes. Nothing here checks or seals:
/// rows and records are returned as stored and written as given (``KeyDirectoryRules`` and the
/// extensions on this protocol do the checking). Conversations are compared by their UTF-8 bytes;
/// orders are byte orders.
package protocol KeyDirectoryTransaction {
    /// Whether an earlier attempt of this write was cut off after its commit may have happened
    /// (PostgreSQL after a lost connection); false on SQLite.
    var isRetry: Bool { get }
    /// Whether the backend keeps a per-conversation high-water mark beside the epoch record
    /// (the SQLite file, format 7). Without it, rollback detection is the caches' alone.
    var keepsEpochMarks: Bool { get }

    // MARK: Keys

    /// The row with key id `kid`, if any.
    func row(kid: [UInt8]) throws(KeyDirectoryError) -> KeyDirectoryRow?
    /// Every row (or one conversation's), ordered by conversation bytes and epoch.
    func rows(conversation: String?) throws(KeyDirectoryError) -> [KeyDirectoryRow]
    /// The conversation's newest row and its epoch record (unchecked), from one snapshot.
    func newestRowAndRecord(conversation: String) throws(KeyDirectoryError) -> (row: KeyDirectoryRow?, record: EpochRecord?)
    /// The highest epoch of the conversation's rows.
    func highestEpoch(conversation: String) throws(KeyDirectoryError) -> Int64?
    /// Whether the conversation has a row other than `excluded`'s.
    func hasRows(conversation: String, excluding excluded: [UInt8]?) throws(KeyDirectoryError) -> Bool
    /// Inserts `row`; ``KeyDirectoryError/duplicateItem`` when its key id or (conversation, epoch) exists.
    func insert(_ row: KeyDirectoryRow) throws(KeyDirectoryError)
    /// The conversation's rows below `epoch` still live after `time` (no not-after, or a later
    /// one), locked for update where the backend locks rows.
    func liveRows(conversation: String, below epoch: Int64, after time: Int64) throws(KeyDirectoryError) -> [KeyDirectoryRow]
    /// Writes `row`'s not-after time and sealed key (by key id).
    func update(_ row: KeyDirectoryRow) throws(KeyDirectoryError)
    /// Writes `row`'s sealed key only (by key id).
    func updateSealed(_ row: KeyDirectoryRow) throws(KeyDirectoryError)
    /// Deletes the row `kid` of `conversation`; how many went (0 or 1).
    func deleteRow(kid: [UInt8], conversation: String) throws(KeyDirectoryError) -> Int
    /// Deletes every row of `conversation`; how many.
    func deleteRows(conversation: String) throws(KeyDirectoryError) -> Int
    /// The conversations that have rows retired before `cutoff` (`not_after < cutoff`), in byte order.
    func conversations(retiredBefore cutoff: Int64) throws(KeyDirectoryError) -> [String]
    /// Deletes the conversation's rows retired before `cutoff`; how many.
    func deleteRows(conversation: String, retiredBefore cutoff: Int64) throws(KeyDirectoryError) -> Int
    /// Takes the conversation's lock for the rest of the transaction (no-op where the transaction
    /// locks the whole directory).
    func lock(conversation: String) throws(KeyDirectoryError)

    // MARK: Epoch records and high-water marks

    /// The conversation's epoch record as stored (unchecked).
    func epochRecord(conversation: String) throws(KeyDirectoryError) -> EpochRecord?
    /// Every epoch record as stored.
    func epochRecords() throws(KeyDirectoryError) -> [EpochRecord]
    /// Inserts or replaces the record of `record.conversation`.
    func putEpochRecord(_ record: EpochRecord) throws(KeyDirectoryError)
    /// Deletes the conversation's epoch record and its high-water mark.
    func forgetConversation(_ conversation: String) throws(KeyDirectoryError)
    /// The conversation's high-water mark as stored (nil without ``keepsEpochMarks``).
    func epochMark(conversation: [UInt8]) throws(KeyDirectoryError) -> (epoch: Int64, tag: [UInt8])?
    /// Every high-water mark's conversation.
    func epochMarkConversations() throws(KeyDirectoryError) -> [[UInt8]]
    /// Inserts or replaces the conversation's high-water mark (ignored without ``keepsEpochMarks``).
    func putEpochMark(conversation: [UInt8], epoch: Int64, tag: [UInt8]) throws(KeyDirectoryError)

    // MARK: Meta values (verifier, provider-key record)

    /// The meta value `name` (`verifier`, `provider_key`).
    func meta(_ name: String) throws(KeyDirectoryError) -> [UInt8]?
    /// Writes the meta value `name` (nil: deletes it).
    func setMeta(_ name: String, _ value: [UInt8]?) throws(KeyDirectoryError)

    // MARK: Identities and registered devices

    /// The identity rows of `kind`, oldest first, as stored.
    func identityRows(_ kind: IdentitySealing.Kind) throws(KeyDirectoryError) -> [SealedIdentityRow]
    /// Inserts an identity row; ``KeyDirectoryError/duplicateItem`` when it exists.
    func insertIdentity(_ binding: IdentitySealing.Binding, sealed: [UInt8]) throws(KeyDirectoryError)
    /// Writes the sealed blob of the identity row (`binding.kind`, `binding.id`).
    func updateIdentity(_ binding: IdentitySealing.Binding, sealed: [UInt8]) throws(KeyDirectoryError)
    /// Deletes the identity row of `kind` with `id`; how many went (0 or 1).
    func deleteIdentity(_ kind: IdentitySealing.Kind, id: KeyID) throws(KeyDirectoryError) -> Int
    /// The registered device rows (all, oldest first, or the one with `id`), as stored.
    func deviceRows(id: KeyID?) throws(KeyDirectoryError) -> [SealedIdentityRow]
    /// Inserts or replaces a registered device row.
    func putDevice(_ binding: IdentitySealing.Binding, sealed: [UInt8]) throws(KeyDirectoryError)

    // MARK: Hooks

    /// Before a purge deletes the rows retired before `cutoff`: the device store's bundle
    /// tombstones (no-op where there are none).
    func willPurge(before cutoff: Int64) throws(KeyDirectoryError)
    /// The conversation's keys changed (nil: any conversation): PostgreSQL notifies its listeners
    /// at commit; a no-op elsewhere.
    func changed(conversation: String?) throws(KeyDirectoryError)
}

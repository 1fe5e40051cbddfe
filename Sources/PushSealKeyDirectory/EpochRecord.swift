import PushSealCore

/// The per-conversation epoch record (Docs/KEY-STORE.md §3.5): the newest epoch a conversation was
/// given and its key id, authenticated under the epoch-record key, on every backend (the SQLite
/// `epochs` table, PostgreSQL's `pushseal_epochs`), so that a deleted or rolled-back newest row is
/// ``KeyDirectoryError/corruptedItem(_:)`` and never a silent fall-back to an older epoch.
package struct EpochRecord: Equatable {
    package static let columns = "conversation, epoch, kid, removed, tag"

    package var conversation: [UInt8]
    package var epoch: Int64
    package var kid: [UInt8]
    /// The newest epoch's key was removed through the API (`remove`, `purgeExpired`): the
    /// conversation has no current key until it is rotated.
    package var removed: Bool
    package var tag: [UInt8]

    /// A record tagged under `recordKey` (see ``ItemSealing/epochRecordKey(masterKey:)``).
    package init(conversation: [UInt8], epoch: Int64, kid: [UInt8], removed: Bool, recordKey: SecretKey) {
        self.conversation = conversation
        self.epoch = epoch
        self.kid = kid
        self.removed = removed
        self.tag = []
        self.tag = ItemSealing.epochRecordTag(
            conversation: conversation, epoch: epoch, keyID: kid, removed: removed, recordKey: recordKey)
    }

    /// A record as read from another backend's table (checked with ``isAuthentic(recordKey:)``).
    package init(conversation: [UInt8], epoch: Int64, kid: [UInt8], removed: Bool, tag: [UInt8]) {
        (self.conversation, self.epoch, self.kid, self.removed, self.tag) = (conversation, epoch, kid, removed, tag)
    }

    /// Whether the tag authenticates every column (constant-time comparison).
    package func isAuthentic(recordKey: SecretKey) -> Bool {
        let expected = ItemSealing.epochRecordTag(
            conversation: conversation, epoch: epoch, keyID: kid, removed: removed, recordKey: recordKey)
        guard tag.count == expected.count else { return false }
        return expected.withUnsafeBytes { e in tag.withUnsafeBytes { t in SecureMemory.constantTimeEqual(e, t) } }
    }

    /// The key id as a ``KeyID`` for errors (a zero id when the column is malformed).
    package var keyID: KeyID { KeyID(bytes: kid) ?? KeyID(bytes: [UInt8](repeating: 0, count: KeyID.byteCount))! }

    /// The high-water mark's tag (file format 7): `HMAC-SHA256(rk, 0x04 || uint32be(len cid) || cid || int64be(epoch))`.
    package static let markFormat: UInt8 = 0x04

    package static func markTag(conversation: [UInt8], epoch: Int64, recordKey: SecretKey) -> [UInt8] {
        var message: [UInt8] = [markFormat]
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: conversation.count).bigEndian) { message += $0 }
        message += conversation
        withUnsafeBytes(of: epoch.bigEndian) { message += $0 }
        return HMACSHA256.authenticationCode(for: message, using: recordKey)
    }
}

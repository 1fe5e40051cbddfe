import PushSealCore

/// The limits and periods every key directory applies, SQLite and PostgreSQL alike.
public enum KeyDirectoryLimits {
    /// How long retired epochs are kept after their retire-by time before `purgeExpired(gracePeriod:)`
    /// deletes them: 31 days (longer than APNs' 30 days and FCM's 28 days of store-and-forward).
    public static let defaultGracePeriod: Int64 = 31 * 86_400
    /// The longest conversation id, in UTF-8 bytes (the content schema's limit for `cid`).
    public static let maximumConversationByteCount = 256

    /// ``KeyDirectoryError/invalidArgument(_:)`` unless `conversation` is 1 to
    /// ``maximumConversationByteCount`` UTF-8 bytes.
    package static func check(conversation: String) throws(KeyDirectoryError) {
        let count = conversation.utf8.count
        guard count >= 1, count <= maximumConversationByteCount else {
            throw .invalidArgument("a conversation id must be 1 to \(maximumConversationByteCount) UTF-8 bytes, not \(count)")
        }
    }

    /// ``check(conversation:)`` for a path that files a key under `conversation` (add, rotate, a
    /// bulk add): also the content schema's one identifier rule
    /// (``NotificationContent/checkIdentifier(_:field:)``: no C0 control character), so no key is
    /// filed under an id no notification can carry. Lookups, listings and removals keep the length
    /// check only: a row filed before this rule stays reachable, listable and removable.
    package static func check(newConversation conversation: String) throws(KeyDirectoryError) {
        try check(conversation: conversation)
        do throws(ContentError) {
            try NotificationContent.checkIdentifier(conversation, field: "cid")
        } catch {
            throw .invalidArgument("a conversation id must not contain a control character U+0000–U+001F")
        }
    }

    /// The not-after time below which `purgeExpired(gracePeriod:)` deletes (`now - gracePeriod`);
    /// nil when that underflows (nothing is that old). ``KeyDirectoryError/invalidArgument(_:)`` for
    /// a negative period.
    package static func purgeCutoff(now: Int64, gracePeriod: Int64) throws(KeyDirectoryError) -> Int64? {
        guard gracePeriod >= 0 else { throw .invalidArgument("grace period \(gracePeriod) is negative") }
        let (cutoff, overflow) = now.subtractingReportingOverflow(gracePeriod)
        return overflow ? nil : cutoff
    }

    /// The error for a master key that does not match a directory's verifier.
    package static func wrongKey(_ source: MasterKeySource) -> KeyDirectoryError {
        .locked("wrong master key: the \(source) does not match this store's master-key verifier")
    }
}

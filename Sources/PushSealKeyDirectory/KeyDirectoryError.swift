import PushSealCore

/// Everything that can go wrong in the key store, as one flat enum.
///
/// A receiver maps ``locked(_:)`` (and, conservatively, every other failure to read a key it
/// knows about) to the reason code `store_locked`; ``itemNotFound`` is `unknown_key`.
public enum KeyDirectoryError: Error, Sendable, Equatable {
    /// The store cannot be read now: the master key is missing, unreadable, malformed or wrong,
    /// or the store's directory or file cannot be accessed. The string says which.
    case locked(String)
    /// No item with the requested key id (or no live key for the conversation).
    case itemNotFound
    /// An item with the same key id, or the same (conversation, epoch), already exists.
    case duplicateItem
    /// The item's sealed key does not open under the master key with its row's key id,
    /// conversation and epoch, or the unsealed key does not have that key id: the row was
    /// tampered with or damaged. Other items are unaffected.
    case corruptedItem(KeyID)
    /// The conversation has keys but no epoch record (file format 3): the record, and perhaps the
    /// newest rows with it, were deleted outside the store's API. The store cannot tell which
    /// epoch is current nor which numbers were given out, so it serves no current key and issues
    /// no epoch for the conversation (never one given out before) until the record is restored
    /// from a backup or the conversation is removed. The remaining keys are not at fault.
    case epochRecordMissing(conversation: String)
    /// The conversation's epoch record says epoch `epoch` is its newest, but this node (the store's
    /// high-water mark, or a cache's) already used `highWater`: its rows and record were put back
    /// from an older copy. Nothing is sealed or served under the older epoch, which a member
    /// removed by the later rotation may hold.
    case rolledBack(conversation: String, epoch: Int64, highWater: Int64)
    /// The store's current provider key pair (the recorded one, file format 6) is missing: its row
    /// (with this id), or the record itself (nil), was deleted or edited outside the store's API.
    /// Bundles are not sealed with an older key pair instead (devices may no longer pin it).
    case providerKeyMissing(KeyID?)
    /// The file was written by a newer (or unknown) version of the store format.
    case unsupportedFileVersion(found: Int64, supported: Int64)
    /// SQLite reported an error: the primary result code, the extended result code and
    /// SQLite's message (for example code 26, "file is not a database", or code 8,
    /// "attempt to write a readonly database").
    case sqlite(code: Int32, extendedCode: Int32, message: String)
    /// There is no key store at the path (and `create` was false), or the file exists but was
    /// never initialized. Nothing was created.
    case storeNotFound(String)
    /// The file is an SQLite database but not a usable PushSeal key store: another
    /// application's database, missing tables or master-key verifier, or malformed rows.
    case invalidStore(String)
    /// An argument is out of range (empty conversation, negative epoch or period, …).
    case invalidArgument(String)
    /// A key directory on a database server (PostgreSQL) cannot be reached: bad connection URI,
    /// server down or unreachable, authentication refused, connection lost and not regained
    /// within the retry budget. The string says which (never a password).
    case serverUnavailable(String)
    /// The database server refused a statement: its SQLSTATE (for example `57014`, statement
    /// timeout) and its message.
    case server(sqlState: String, message: String)
}

extension KeyDirectoryError: CustomStringConvertible {
    /// A one-line message for diagnostics (never contains secret material).
    public var description: String {
        switch self {
        case let .locked(why): "key store is locked: \(why)"
        case .itemNotFound: "no such key in the key store"
        case .duplicateItem: "the key store already holds a key with this key id or this conversation and epoch"
        case let .corruptedItem(kid): "the stored key \(kid) is corrupted (it does not unseal, or its key id does not match)"
        case let .epochRecordMissing(conversation):
            "conversation \(String(reflecting: conversation)) has keys but no valid epoch record: its record or high-water mark (and perhaps its newest keys) was deleted or edited outside pushseal"
        case let .rolledBack(conversation, epoch, highWater):
            "conversation \(String(reflecting: conversation)) was rolled back: its newest epoch is \(epoch), but epoch \(highWater) was already used here; nothing is sealed under the older epoch"
        case let .providerKeyMissing(kid?):
            "the current provider key \(kid) is missing from the key store (its row was deleted outside pushseal); no older provider key is used instead"
        case .providerKeyMissing(nil):
            "the key store has provider keys but its record of the current one is missing or damaged (changed outside pushseal); no provider key is used"
        case let .unsupportedFileVersion(found, supported):
            "key store file format version \(found) is not supported (this version reads up to \(supported))"
        case let .sqlite(code, extendedCode, message): "SQLite error \(code) (extended \(extendedCode)): \(message)"
        case let .storeNotFound(why): "no key store: \(why)"
        case let .invalidStore(why): "not a usable PushSeal key store: \(why)"
        case let .invalidArgument(why): "invalid argument: \(why)"
        case let .serverUnavailable(why): "the key directory's database server is unavailable: \(why)"
        case let .server(sqlState, message): "the key directory's database server refused a statement (SQLSTATE \(sqlState)): \(message)"
        }
    }
}

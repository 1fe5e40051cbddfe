import PushSealCore

/// Where the store master key (32 uniformly random bytes) comes from.
///
/// The master key is only ever read by a key store or directory (`DeviceKeyStore`, `PostgreSQLKeyDirectory`): a source that cannot
/// produce it makes it report ``KeyDirectoryError/locked(_:)``. A source creates a new master key only while a new
/// store is being initialized (`DeviceKeyStore(…, create: true)` on a missing or empty file), never for
/// an existing store — a missing key for an existing store is reported, not replaced.
public struct MasterKeySource: Sendable, CustomStringConvertible {
    /// Length of a master key in bytes.
    public static let byteCount = 32

    enum Kind: Sendable {
        case keyFile(path: String, createIfMissing: Bool)
        case bytes(SecretKey)
        #if canImport(Security)
        case keychain(service: String, account: String, accessGroup: String?)
        #endif
    }

    let kind: Kind

    /// A file holding exactly the 32 raw key bytes, mode 0600 (the default on Linux servers).
    ///
    /// Reading refuses a file that group or others may access (any of the mode bits 0077), one
    /// that is not a regular file, and one that is not exactly 32 bytes long.
    /// With `createIfMissing`, a missing file is created — only when a new store is being
    /// initialized — with an exclusive create, mode 0600, 32 bytes from the CSPRNG and fsync.
    public static func keyFile(path: String, createIfMissing: Bool = false) -> MasterKeySource {
        MasterKeySource(kind: .keyFile(path: path, createIfMissing: createIfMissing))
    }

    /// Key bytes the app supplies: read from the iOS Keychain, unwrapped with an Android
    /// Keystore key, or from any other secret store. Must be 32 uniformly random bytes.
    /// They are copied into memory that is zeroed when released; zero your own copy when done.
    public static func bytes(_ keyBytes: some Sequence<UInt8>) -> MasterKeySource {
        bytes(SecretKey(bytes: keyBytes))
    }

    /// A key already in secure storage (tests, tools of this package).
    package static func bytes(_ key: SecretKey) -> MasterKeySource {
        MasterKeySource(kind: .bytes(key))
    }

    #if canImport(Security)
    /// A generic-password item in the Apple Keychain, readable after first unlock on this device
    /// only (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`), so a Notification Service
    /// Extension can read it while the device is locked. Pass the Keychain access group shared
    /// by the app and its extension (`TEAMID.group.example`), or nil for the default group.
    /// The item is created (32 random bytes) when a new store is initialized.
    public static func keychain(service: String, account: String, accessGroup: String?) -> MasterKeySource {
        MasterKeySource(kind: .keychain(service: service, account: account, accessGroup: accessGroup))
    }
    #endif

    /// Which source this is, for diagnostics (never the key).
    public var description: String {
        switch kind {
        case let .keyFile(path, _): "key file \(path)"
        case .bytes: "app-supplied key"
        #if canImport(Security)
        case let .keychain(service, account, accessGroup):
            "keychain item \(service)/\(account)" + (accessGroup.map { " in access group \($0)" } ?? "")
        #endif
        }
    }

    /// Produces the master key, its HMAC state keyed. `mayCreate` is true only while a new store
    /// is being initialized. Every failure is ``KeyDirectoryError/locked(_:)``.
    package func load(mayCreate: Bool) throws(KeyDirectoryError) -> MasterKey {
        let key: SecretKey
        switch kind {
        case let .keyFile(path, createIfMissing):
            key = try KeyFile.load(path: path, create: mayCreate && createIfMissing)
        case let .bytes(supplied):
            key = supplied
        #if canImport(Security)
        case let .keychain(service, account, accessGroup):
            key = try KeychainMasterKey.load(service: service, account: account, accessGroup: accessGroup, create: mayCreate)
        #endif
        }
        guard key.byteCount == Self.byteCount else {
            throw .locked("the master key from the \(self) is \(key.byteCount) bytes; it must be \(Self.byteCount)")
        }
        return MasterKey(key)
    }
}

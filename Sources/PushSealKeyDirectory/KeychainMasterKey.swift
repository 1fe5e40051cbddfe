#if canImport(Security)
// Apple-only adapter: the Security framework's API is CFDictionary/Data based, so this file (and
// only this file) uses Foundation, which is part of every Apple OS image.
import Foundation
import PushSealCore
import Security

/// The master key as a generic-password Keychain item.
///
/// Accessibility is `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`: readable by a
/// Notification Service Extension while the device is locked (after the first unlock since
/// boot), never synchronized to iCloud or restored to another device. Share it between the app
/// and its extension with a Keychain access group listed in both targets' entitlements.
///
/// An existing item's class is checked on every read — also right after `errSecDuplicateItem`,
/// when another process created the item — and handled as ``KeychainAccessibility/decision(for:)``
/// says: accepted, migrated to the required class with `SecItemUpdate`, or refused.
enum KeychainMasterKey {
    static func load(service: String, account: String, accessGroup: String?, create: Bool) throws(KeyDirectoryError) -> SecretKey {
        let name = "\(service)/\(account)"
        switch copy(service: service, account: account, accessGroup: accessGroup) {
        case let .found(key):
            return key
        case .notFound where create:
            try add(service: service, account: account, accessGroup: accessGroup)
            switch copy(service: service, account: account, accessGroup: accessGroup) {
            case let .found(key): return key
            case .notFound: throw .locked("keychain item \(name) could not be read back after it was created")
            case let .failed(error): throw error
            }
        case .notFound:
            throw .locked("there is no master key in keychain item \(name)")
        case let .failed(error):
            throw error
        }
    }

    private enum CopyResult {
        case found(SecretKey)
        case notFound
        case failed(KeyDirectoryError)
    }

    private static func baseQuery(service: String, account: String, accessGroup: String?) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        if let accessGroup {
            query[kSecAttrAccessGroup as String] = accessGroup
        }
        #if os(macOS)
        // The iOS-style keychain (access groups, accessibility classes) instead of the file-based one.
        query[kSecUseDataProtectionKeychain as String] = true
        #endif
        return query
    }

    private static func copy(service: String, account: String, accessGroup: String?) -> CopyResult {
        var query = baseQuery(service: service, account: account, accessGroup: accessGroup)
        query[kSecReturnData as String] = true
        query[kSecReturnAttributes as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        switch status {
        case errSecSuccess:
            guard let attributes = result as? [String: Any], var data = attributes[kSecValueData as String] as? Data else {
                return .failed(.locked("keychain item \(service)/\(account) holds no data"))
            }
            // Best effort: wipe our copy (the Security framework's own buffers are out of reach).
            defer { data.resetBytes(in: 0..<data.count) }
            let found = (attributes[kSecAttrAccessible as String] as? String).map(accessibility(_:))
            switch KeychainAccessibility.decision(for: found) {
            case .accept:
                break
            case .migrate:
                let change = [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly] as CFDictionary
                let item = baseQuery(service: service, account: account, accessGroup: accessGroup) as CFDictionary
                let updated = SecItemUpdate(item, change)
                guard updated == errSecSuccess else {
                    return .failed(locked(updated, doing: "move keychain item \(service)/\(account) from the weaker class \(found!) to AfterFirstUnlockThisDeviceOnly"))
                }
            case let .refuse(reason):
                return .failed(.locked("keychain item \(service)/\(account) is not used: \(reason)"))
            }
            guard data.count == MasterKeySource.byteCount else {
                return .failed(.locked("keychain item \(service)/\(account) holds \(data.count) bytes; it must hold \(MasterKeySource.byteCount)"))
            }
            let key = data.withUnsafeBytes { SecretKey(storage: SecureBytes(copying: $0)) }
            return .found(key)
        case errSecItemNotFound:
            return .notFound
        default:
            return .failed(locked(status, doing: "read keychain item \(service)/\(account)"))
        }
    }

    private static func add(service: String, account: String, accessGroup: String?) throws(KeyDirectoryError) {
        var attributes = baseQuery(service: service, account: account, accessGroup: accessGroup)
        attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        var data = Data(count: MasterKeySource.byteCount)
        data.withUnsafeMutableBytes { SystemRandom.fill($0) }
        defer { data.resetBytes(in: 0..<data.count) }
        attributes[kSecValueData as String] = data
        let status = SecItemAdd(attributes as CFDictionary, nil)
        switch status {
        case errSecSuccess, errSecDuplicateItem:
            // Duplicate: another process (the app or its extension) created it first; the caller
            // reads it back with copy(), which checks its accessibility class like every read.
            return
        default:
            throw locked(status, doing: "create keychain item \(service)/\(account)")
        }
    }

    /// The case of a `kSecAttrAccessible` value.
    private static func accessibility(_ value: String) -> KeychainAccessibility {
        let known: [(CFString, KeychainAccessibility)] = [
            (kSecAttrAccessibleWhenUnlocked, .whenUnlocked),
            (kSecAttrAccessibleAfterFirstUnlock, .afterFirstUnlock),
            (kSecAttrAccessibleAlways, .always),
            (kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .whenUnlockedThisDeviceOnly),
            (kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, .afterFirstUnlockThisDeviceOnly),
            (kSecAttrAccessibleAlwaysThisDeviceOnly, .alwaysThisDeviceOnly),
            (kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, .whenPasscodeSetThisDeviceOnly),
        ]
        return known.first { ($0.0 as String) == value }?.1 ?? .unknown(value)
    }

    private static func locked(_ status: OSStatus, doing what: String) -> KeyDirectoryError {
        if status == errSecInteractionNotAllowed {
            return .locked("cannot \(what): the keychain is not available (device not unlocked since boot?)")
        }
        let message = (SecCopyErrorMessageString(status, nil) as String?) ?? "OSStatus \(status)"
        return .locked("cannot \(what): \(message) (OSStatus \(status))")
    }
}
#endif

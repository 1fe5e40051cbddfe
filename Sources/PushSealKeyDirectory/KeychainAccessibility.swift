/// The Keychain accessibility class of a master-key item (`kSecAttrAccessible`), and what the
/// store does with an existing item of each class. Platform-neutral, so that the decision is
/// tested everywhere; the Apple-only adapter (`KeychainMasterKey`) only maps the Security
/// framework's constants to these cases and carries the decision out.
enum KeychainAccessibility: Sendable, Equatable {
    case whenUnlocked
    case afterFirstUnlock
    case always
    case whenUnlockedThisDeviceOnly
    case afterFirstUnlockThisDeviceOnly
    case alwaysThisDeviceOnly
    case whenPasscodeSetThisDeviceOnly
    /// A value this code does not know (a newer OS, or a damaged item).
    case unknown(String)

    /// The class the store creates its item with: readable by a Notification Service Extension
    /// while the device is locked (after the first unlock since boot), never synchronized or
    /// restored to another device.
    static let required = KeychainAccessibility.afterFirstUnlockThisDeviceOnly

    /// What to do with an existing item.
    enum Decision: Sendable, Equatable {
        /// Use it as it is.
        case accept
        /// Change its class to ``KeychainAccessibility/required`` (`SecItemUpdate`) first; refuse
        /// the key if that fails.
        case migrate
        /// Do not use it: the reason, for ``KeyDirectoryError/locked(_:)``.
        case refuse(String)
    }

    /// The decision for an existing item whose class is `found` (nil: the item has none).
    ///
    /// - The required class is accepted.
    /// - The "this device only" classes that are never readable while the device is locked
    ///   (`WhenUnlockedThisDeviceOnly`, `WhenPasscodeSetThisDeviceOnly`) are stronger: accepted
    ///   as they are (an extension then cannot read the key while the device is locked, and falls
    ///   back with `store_locked`).
    /// - Every other known class is weaker in some way — readable before the first unlock
    ///   (`Always…`), or able to leave the device in a backup (the classes without "this device
    ///   only") — and is migrated to the required class.
    /// - A missing or unknown class is refused: nothing says how the key is protected.
    static func decision(for found: KeychainAccessibility?) -> Decision {
        switch found {
        case .afterFirstUnlockThisDeviceOnly?, .whenUnlockedThisDeviceOnly?, .whenPasscodeSetThisDeviceOnly?:
            return .accept
        case .whenUnlocked?, .afterFirstUnlock?, .always?, .alwaysThisDeviceOnly?:
            return .migrate
        case let .unknown(value)?:
            return .refuse("its accessibility class '\(value)' is unknown to this version; delete the item or recreate it with AfterFirstUnlockThisDeviceOnly")
        case nil:
            return .refuse("it has no accessibility class; delete the item or recreate it with AfterFirstUnlockThisDeviceOnly")
        }
    }
}

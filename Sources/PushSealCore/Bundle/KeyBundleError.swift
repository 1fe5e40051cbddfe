/// Why a device refused a key bundle, or why installing it failed: one vocabulary for the code,
/// the CLI, the vectors, the ports and the docs (SPEC §16.5). The raw values are the exact strings.
public enum KeyBundleReason: String, Sendable, CaseIterable, Codable {
    /// Not strict base64url, empty, too long, or the header or length is wrong.
    case malformedBundle = "malformed_bundle"
    /// The bundle's version byte is not 0x01.
    case unsupportedBundleVersion = "unsupported_bundle_version"
    /// The bundle is sealed to another device key.
    case wrongDevice = "wrong_device"
    /// The bundle names a provider key this device has not pinned.
    case unknownProvider = "unknown_provider"
    /// HPKE (auth mode, pinned provider key) did not open the bundle: forged or tampered.
    case bundleAuthenticationFailed = "bundle_authentication_failed"
    /// The opened key does not derive the header's key id.
    case kidMismatch = "kid_mismatch"
    /// The key's not-after time has passed.
    case bundleExpired = "bundle_expired"
    /// The device already holds a different key for the bundle's conversation and epoch, or
    /// this key under another conversation or epoch.
    case conflictingKey = "conflicting_key"
    /// The device store is locked or unavailable (the receiver's existing code).
    case storeLocked = "store_locked"
}

/// Why a key bundle was refused. Each case corresponds to exactly one ``KeyBundleReason``;
/// no case carries secret material.
public enum KeyBundleError: Error, Sendable, Equatable {
    /// See ``KeyBundleReason/malformedBundle``; the string says what is wrong.
    case malformedBundle(String)
    /// See ``KeyBundleReason/unsupportedBundleVersion``; carries the version byte found.
    case unsupportedBundleVersion(UInt8)
    /// See ``KeyBundleReason/wrongDevice``; carries the bundle's device key id.
    case wrongDevice(KeyID)
    /// See ``KeyBundleReason/unknownProvider``; carries the bundle's provider key id.
    case unknownProvider(KeyID)
    /// See ``KeyBundleReason/bundleAuthenticationFailed``.
    case bundleAuthenticationFailed
    /// See ``KeyBundleReason/kidMismatch``.
    case kidMismatch
    /// See ``KeyBundleReason/bundleExpired``; the key's not-after time and the device's clock.
    case bundleExpired(notAfter: Int64, now: Int64)
    /// See ``KeyBundleReason/conflictingKey``; the string names what conflicts.
    case conflictingKey(String)
    /// See ``KeyBundleReason/storeLocked``; the string says why the store could not be used.
    case storeLocked(String)

    /// The reason code this error is reported as.
    public var reason: KeyBundleReason {
        switch self {
        case .malformedBundle: .malformedBundle
        case .unsupportedBundleVersion: .unsupportedBundleVersion
        case .wrongDevice: .wrongDevice
        case .unknownProvider: .unknownProvider
        case .bundleAuthenticationFailed: .bundleAuthenticationFailed
        case .kidMismatch: .kidMismatch
        case .bundleExpired: .bundleExpired
        case .conflictingKey: .conflictingKey
        case .storeLocked: .storeLocked
        }
    }
}

extension KeyBundleError: CustomStringConvertible {
    /// A one-line explanation for diagnostics; the machine-readable form is ``reason``.
    public var description: String {
        switch self {
        case let .malformedBundle(detail): "malformed key bundle: \(detail)"
        case let .unsupportedBundleVersion(version): "unsupported key bundle version \(version) (this implementation reads version 1)"
        case let .wrongDevice(id): "the bundle is sealed to device key \(id), not this device's"
        case let .unknownProvider(id): "the bundle names provider key \(id), which this device has not pinned"
        case .bundleAuthenticationFailed: "bundle authentication failed: not sealed by the pinned provider key to this device, or tampered"
        case .kidMismatch: "the opened key does not derive the key id in the bundle's header"
        case let .bundleExpired(notAfter, now): "the key expired at \(notAfter), now \(now)"
        case let .conflictingKey(detail): "conflicting key: \(detail)"
        case let .storeLocked(detail): "key store locked or unavailable: \(detail)"
        }
    }
}

/// Why a key bundle could not be sealed (the provider's side; nothing was produced).
public enum KeyBundleSealingError: Error, Sendable, Equatable {
    /// A header field is out of range; the string says which and why.
    case invalidField(String)
    /// The device public key is not 32 bytes or is a small-order point (X25519 gives the
    /// all-zero secret, which RFC 9180 §7.1.4 refuses).
    case invalidDevicePublicKey(String)
}

extension KeyBundleSealingError: CustomStringConvertible {
    /// A one-line explanation, for error messages.
    public var description: String {
        switch self {
        case let .invalidField(detail): "cannot seal the key bundle: \(detail)"
        case let .invalidDevicePublicKey(detail): "unusable device public key: \(detail)"
        }
    }
}

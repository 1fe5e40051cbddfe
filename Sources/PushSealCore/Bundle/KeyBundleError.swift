/// Why a device refused a key bundle, or why installing it failed: one vocabulary for the code,
/// the CLI, the vectors, the ports and the docs (SPEC §16.5). The raw values are the exact strings.
public enum KeyBundleReason: String, Sendable, CaseIterable, Codable {
    /// Not strict base64url, longer than 1024 characters, not 403 bytes, or a sealed field out of range.
    case malformedBundle = "malformed_bundle"
    /// The bundle's version byte is not 0x02 (format 1 bundles included).
    case unsupportedBundleVersion = "unsupported_bundle_version"
    /// The bundle names a provider key this device has not pinned.
    case unknownProvider = "unknown_provider"
    /// HPKE (auth mode, pinned provider key) did not open the bundle: forged, tampered, or sealed
    /// to another device.
    case bundleAuthenticationFailed = "bundle_authentication_failed"
    /// The opened key does not derive the sealed kid.
    case kidMismatch = "kid_mismatch"
    /// The bundle's expiry time has passed.
    case bundleExpired = "bundle_expired"
    /// In band: the bundle's kid is not the kid of the envelope it rides with; not installed.
    case envelopeMismatch = "envelope_mismatch"
    /// The bundle's epoch was purged on this device (a tombstone: purged epochs never come back).
    case epochPurged = "epoch_purged"
    /// The bundle's epoch is more than 65536 above the newest the device installed.
    case epochOutOfRange = "epoch_out_of_range"
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
    /// See ``KeyBundleReason/unknownProvider``; carries the bundle's provider key id.
    case unknownProvider(KeyID)
    /// See ``KeyBundleReason/bundleAuthenticationFailed``.
    case bundleAuthenticationFailed
    /// See ``KeyBundleReason/kidMismatch``.
    case kidMismatch
    /// See ``KeyBundleReason/bundleExpired``; the bundle's expiry time and the device's clock.
    case bundleExpired(expires: Int64, now: Int64)
    /// See ``KeyBundleReason/envelopeMismatch``; the envelope's kid.
    case envelopeMismatch(KeyID)
    /// See ``KeyBundleReason/epochPurged``; the bundle's epoch and the conversation's tombstone.
    case epochPurged(epoch: Int64, purgedThrough: Int64)
    /// See ``KeyBundleReason/epochOutOfRange``; the bundle's epoch and the conversation's newest.
    case epochOutOfRange(epoch: Int64, highWater: Int64)
    /// See ``KeyBundleReason/conflictingKey``; the string names what conflicts.
    case conflictingKey(String)
    /// See ``KeyBundleReason/storeLocked``; the string says why the store could not be used.
    case storeLocked(String)

    /// The reason code this error is reported as.
    public var reason: KeyBundleReason {
        switch self {
        case .malformedBundle: .malformedBundle
        case .unsupportedBundleVersion: .unsupportedBundleVersion
        case .unknownProvider: .unknownProvider
        case .bundleAuthenticationFailed: .bundleAuthenticationFailed
        case .kidMismatch: .kidMismatch
        case .bundleExpired: .bundleExpired
        case .envelopeMismatch: .envelopeMismatch
        case .epochPurged: .epochPurged
        case .epochOutOfRange: .epochOutOfRange
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
        case let .unsupportedBundleVersion(version): "unsupported key bundle version \(version) (this implementation reads version 2)"
        case let .unknownProvider(id): "the bundle names provider key \(id), which this device has not pinned"
        case .bundleAuthenticationFailed: "bundle authentication failed: not sealed by the pinned provider key to this device, or tampered"
        case .kidMismatch: "the opened key does not derive the key id sealed with it"
        case let .bundleExpired(expires, now): "the bundle expired at \(expires), now \(now)"
        case let .envelopeMismatch(id): "the bundle does not carry key \(id), the key of the envelope it came with; not installed"
        case let .epochPurged(epoch, purgedThrough): "epoch \(epoch) was purged on this device (purged through epoch \(purgedThrough))"
        case let .epochOutOfRange(epoch, highWater):
            "epoch \(epoch) is more than \(KeyBundleConversationRecord.maximumStep) above the newest installed epoch \(highWater)"
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

import PushSealCore

/// A device registered with the provider's key directory (Docs/KEY-STORE.md §3.7): the public key
/// of its registration (`pushseal device init`), so that bundles and per-device keys can be sealed
/// to it by its device key id alone, and whether it was revoked. The row is authenticated under
/// the master key (public key, times and revocation bound in), on SQLite and PostgreSQL alike.
public struct RegisteredDevice: Sendable, Equatable {
    /// The device key id (SPEC §16.1): the id of ``publicKey``.
    public let id: KeyID
    /// The device's 32-byte X25519 public key.
    public let publicKey: [UInt8]
    /// When it was registered, in seconds since 1970.
    public let createdAt: Int64
    /// When it was revoked (nothing is sealed to it any more), nil while it is not.
    public let revokedAt: Int64?

    /// A registered device's facts (as a backend reads them back).
    package init(id: KeyID, publicKey: [UInt8], createdAt: Int64, revokedAt: Int64?) {
        (self.id, self.publicKey, self.createdAt, self.revokedAt) = (id, publicKey, createdAt, revokedAt)
    }

    /// The registration to seal bundles to.
    public var registration: DeviceRegistration {
        // The public key was checked (32 bytes, not of small order) when it was registered.
        try! DeviceRegistration(publicKey: publicKey)
    }

    /// The rules of registrations, written once for both backends.
    package enum Rules {
        /// The sealed row for a new registration (not revoked).
        package static func binding(_ registration: DeviceRegistration, createdAt: Int64) -> IdentitySealing.Binding {
            .init(kind: .registered, id: registration.deviceKeyID.bytes, publicKey: registration.publicKey, createdAt: createdAt)
        }

        /// Registering `registration` again where `existing` is registered: the same device (the
        /// id is the public key's), so nothing changes, unless it was revoked: a revoked device
        /// key is never registered again (a wiped device makes a new one). Returns `existing`.
        package static func reRegistration(of existing: RegisteredDevice) throws(KeyDirectoryError) -> RegisteredDevice {
            if let revokedAt = existing.revokedAt {
                throw .invalidArgument(
                    "device \(existing.id) was revoked at \(revokedAt); a revoked device key is not registered again (the device makes a new one with a logout wipe)")
            }
            return existing
        }

        /// A row read back: its id must be its public key's, its tag must authenticate the row.
        /// ``KeyDirectoryError/invalidStore(_:)`` otherwise (edited outside the API).
        package static func checked(_ binding: IdentitySealing.Binding, sealed: [UInt8], masterKey: MasterKey) throws(KeyDirectoryError) -> RegisteredDevice {
            guard binding.id.count == KeyID.byteCount, binding.publicKey.count == IdentityKeyPair.byteCount,
                  let id = KeyID(bytes: binding.id), id == KeyBundle.deviceKeyID(of: binding.publicKey)
            else { throw .invalidStore("a registered device row's id is not the id of its public key") }
            _ = try IdentitySealing.unseal(sealed, binding: binding, masterKey: masterKey)
            return RegisteredDevice(id: id, publicKey: binding.publicKey, createdAt: binding.createdAt, revokedAt: binding.revokedAt)
        }

        /// The binding of `device` revoked at `now` (a device revoked already keeps its time).
        package static func revoked(_ device: RegisteredDevice, at now: Int64) -> IdentitySealing.Binding {
            .init(kind: .registered, id: device.id.bytes, publicKey: device.publicKey, createdAt: device.createdAt, revokedAt: device.revokedAt ?? now)
        }

        /// The binding of an existing row (to seal it again under a new master key).
        package static func binding(of device: RegisteredDevice) -> IdentitySealing.Binding {
            .init(kind: .registered, id: device.id.bytes, publicKey: device.publicKey, createdAt: device.createdAt, revokedAt: device.revokedAt)
        }

        /// Whether a per-device seal for `deviceKeyID` is allowed, given its registration (nil:
        /// not registered) and whether the directory has any registration at all: a revoked
        /// device never; an unregistered one only while the directory registers no device (a
        /// directory that does not use registrations keeps accepting every id). Throws
        /// ``KeyDirectoryError/itemNotFound`` or ``KeyDirectoryError/invalidArgument(_:)`` saying which.
        package static func requireSealable(_ deviceKeyID: KeyID, registered: RegisteredDevice?, directoryHasRegistrations: Bool) throws(KeyDirectoryError) {
            if let registered {
                if let revokedAt = registered.revokedAt {
                    throw .invalidArgument("device \(deviceKeyID) was revoked at \(revokedAt): nothing is sealed to it")
                }
                return
            }
            if directoryHasRegistrations { throw .itemNotFound }
        }
    }
}

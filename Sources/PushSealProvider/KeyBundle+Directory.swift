public import PushSealCore
public import PushSealKeyDirectory

/// A key bundle sealed for one device from a key directory
/// (`KeyBundle.seal(from:conversation:epoch:providerKeyID:device:now:lifetime:)`),
/// with the key it carries.
public struct DeviceBundle: Sendable {
    /// The bundle: its `text` goes to the device, out of band or in band.
    public let bundle: KeyBundle
    /// The epoch of the conversation key K the bundle's key was derived from.
    public let item: KeyItem
    /// The device's key K_d that the bundle carries: notifications for this device are sealed with it.
    public let deviceKey: ConversationKey
    /// Whether the epoch is the conversation's current one (its bundle then has no retire-by time).
    public let isCurrent: Bool
}

/// Why a key directory sealed no bundle for a device.
public enum DeviceBundleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The directory registers its devices and not this one.
    case deviceNotRegistered(KeyID)
    /// The directory refuses to seal to this device (revoked); the directory's reason.
    case deviceNotSealable(KeyID, String)
    /// The conversation has no keys in the directory.
    case noKeys(conversation: String)
    /// The conversation has no such epoch; its epochs are listed.
    case noSuchEpoch(conversation: String, epoch: Int64, epochs: [Int64])
    /// No epoch of the conversation is current (each is past its not-after time).
    case noCurrentKey(conversation: String)
    /// The directory has no provider key with this id (nil: none at all).
    case noProviderKey(KeyID?)
    /// The epoch was created before per-device keys (its K went out in format-1 bundles), so
    /// keys derived from it are no secret among the conversation's devices: rotate first.
    case sharedEpoch(conversation: String, epoch: Int64)
    /// `now + lifetime` runs past `Int64.max`.
    case invalidLifetime(Int64)
    /// The directory could not be read.
    case directory(KeyDirectoryError)
    /// The bundle could not be sealed (a field out of range, a bad device key).
    case sealing(KeyBundleSealingError)

    /// What went wrong, for people.
    public var description: String {
        switch self {
        case let .deviceNotRegistered(id): "device \(id) is not registered in the key directory, which registers its devices"
        case let .deviceNotSealable(_, why): why
        case let .noKeys(conversation): "conversation \(conversation) has no keys"
        case let .noSuchEpoch(conversation, epoch, epochs): "conversation \(conversation) has no epoch \(epoch) (its epochs: \(epochs.map(String.init).joined(separator: ", ")))"
        case let .noCurrentKey(conversation): "conversation \(conversation) has no current key: every epoch is past its not-after time"
        case let .noProviderKey(id?): "the key directory has no provider key \(id)"
        case .noProviderKey(nil): "the key directory has no provider key to seal key bundles with"
        case let .sharedEpoch(conversation, epoch): "epoch \(epoch) of \(conversation) was created before per-device keys (its key went out in format-1 bundles); it cannot be sealed per device"
        case let .invalidLifetime(lifetime): "a lifetime of \(lifetime) seconds runs past 2^63 - 1"
        case let .directory(error): "\(error)"
        case let .sealing(error): "\(error)"
        }
    }
}

extension KeyBundle {
    /// Seals a conversation's key for one device from a key directory (SPEC §16): the device
    /// must be sealable (`KeyDirectory.requireSealable(deviceKeyID:)`: not
    /// revoked, and registered where the directory registers devices); the epoch is the
    /// conversation's current one, or `epoch` (which may be retired: the device then installs it
    /// as retired); its K must be per-device (an epoch from before per-device keys is refused);
    /// the device's key K_d derived from it is sealed with the directory's current provider key
    /// (or `providerKeyID`'s), with since = the epoch's created time, retire-by = none while it
    /// is current, else its not-after time (now when it has none), and expires = `now` +
    /// `lifetime` (a negative lifetime makes a bundle that is already expired).
    ///
    /// ```swift
    /// let sealed = try KeyBundle.seal(from: directory, conversation: "c1", device: registration, now: now)
    /// api.send(sealed.bundle.text, to: registration.deviceKeyID)
    /// ```
    public static func seal(
        from directory: any KeyDirectory, conversation: String, epoch: Int64? = nil, providerKeyID: KeyID? = nil,
        device: DeviceRegistration, now: Int64, lifetime: Int64 = KeyBundle.defaultLifetime
    ) throws(DeviceBundleError) -> DeviceBundle {
        do throws(KeyDirectoryError) {
            try directory.requireSealable(deviceKeyID: device.deviceKeyID)
        } catch .itemNotFound {
            throw .deviceNotRegistered(device.deviceKeyID)
        } catch let .invalidArgument(why) {
            throw .deviceNotSealable(device.deviceKeyID, why)
        } catch {
            throw .directory(error)
        }
        let (stored, isCurrent) = try conversationKey(in: directory, conversation: conversation, epoch: epoch)
        let provider: IdentityKeyPair
        do throws(KeyDirectoryError) {
            provider = try directory.providerKey(id: providerKeyID)
        } catch .itemNotFound {
            throw .noProviderKey(providerKeyID)
        } catch {
            throw .directory(error)
        }
        let shared: Bool
        do throws(KeyDirectoryError) {
            shared = try directory.isSharedEpoch(conversation: conversation, epoch: stored.item.epoch)
        } catch {
            throw .directory(error)
        }
        guard !shared else { throw .sharedEpoch(conversation: conversation, epoch: stored.item.epoch) }
        let since = stored.item.createdAt
        let retireBy = isCurrent ? nil : max(since, stored.item.notAfter ?? now)
        let (expires, overflow) = now.addingReportingOverflow(lifetime)
        guard !overflow else { throw .invalidLifetime(lifetime) }
        do throws(KeyBundleSealingError) {
            let bundle = try KeyBundle.seal(
                conversationKey: stored.key, conversation: conversation, epoch: stored.item.epoch, since: since, retireBy: retireBy,
                expires: expires, provider: provider, device: device)
            return DeviceBundle(bundle: bundle, item: stored.item, deviceKey: stored.key.deviceKey(for: device.deviceKeyID), isCurrent: isCurrent)
        } catch {
            throw .sealing(error)
        }
    }

    /// The key to deliver — `epoch`'s, or the conversation's current one — and whether it is
    /// the current one.
    private static func conversationKey(
        in directory: any KeyDirectory, conversation: String, epoch: Int64?
    ) throws(DeviceBundleError) -> (StoredKey, isCurrent: Bool) {
        let items: [KeyItem]
        do throws(KeyDirectoryError) {
            items = try directory.items(conversation: conversation)
        } catch {
            throw .directory(error)
        }
        guard !items.isEmpty else { throw .noKeys(conversation: conversation) }
        let current: StoredKey?
        do throws(KeyDirectoryError) {
            current = try directory.currentKey(conversation: conversation)
        } catch .itemNotFound {
            current = nil
        } catch {
            throw .directory(error)
        }
        if let epoch {
            guard let item = items.first(where: { $0.epoch == epoch }) else {
                throw .noSuchEpoch(conversation: conversation, epoch: epoch, epochs: items.map(\.epoch))
            }
            let stored: StoredKey
            do throws(KeyDirectoryError) {
                stored = try directory.key(for: item.keyID)
            } catch {
                throw .directory(error)
            }
            return (stored, current?.item.keyID == stored.item.keyID)
        }
        guard let current else { throw .noCurrentKey(conversation: conversation) }
        return (current, true)
    }
}

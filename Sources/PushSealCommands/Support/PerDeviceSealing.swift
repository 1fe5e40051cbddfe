import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import PushSealProvider

/// The rules of sealing per device on the provider (SPEC §16.9): which device a seal is for, and
/// which epochs may be the root of per-device keys.
enum PerDeviceSealing {
    /// The one place where a device key id given to the provider (`seal --device`, a JSON line's
    /// `device`) is checked against the key directory's device registrations
    /// (`KeyDirectory.requireSealable(deviceKeyID:)`): a revoked device is refused, and so is an
    /// unregistered one once the directory registers devices; a directory without registrations
    /// accepts every well-formed id, the sealing key derived from it alone. Each device is checked
    /// once per run (``DeviceKeys/registrations``): a revocation committed while a batch runs
    /// applies from the next run.
    static func checkRegistration(_ deviceKeyID: KeyID, deviceKeys: DeviceKeys) throws(ProviderError) -> KeyID {
        if let known = deviceKeys.registrations.withLock({ $0[deviceKeyID] }) {
            try known.get()
            return deviceKeyID
        }
        let outcome: Result<Void, ProviderError>
        do throws(KeyDirectoryError) {
            try deviceKeys.directory.requireSealable(deviceKeyID: deviceKeyID)
            outcome = .success(())
        } catch .itemNotFound {
            outcome = .failure(.invalidOption(field: "device", detail: "device \(deviceKeyID) is not registered in the key directory, which registers its devices (pushseal store device register)"))
        } catch let .invalidArgument(why) {
            outcome = .failure(.invalidOption(field: "device", detail: why))
        } catch {
            // Not remembered: a server that is unavailable now may answer the next line.
            throw .keyUnavailable(conversation: "", detail: "the device registrations cannot be read: \(error)")
        }
        deviceKeys.registrations.withLock { $0[deviceKeyID] = outcome }
        try outcome.get()
        return deviceKeyID
    }
}

/// The device keys of `seal --store --device` and of JSON lines with a `device` member: the
/// conversation's current K from the key directory, checked not to be shared (an epoch from
/// before per-device keys, on a SQLite directory), and the device's K_d derived from it through
/// one cache per process (per epoch key and device).
final class DeviceKeys: Sendable {
    let directory: any KeyDirectory
    let location: StoreCommand.Location
    let cache = DeviceKeyCache()
    /// Each device's registration check of this run (``PerDeviceSealing/checkRegistration(_:deviceKeys:)``).
    let registrations = Locked<[KeyID: Result<Void, ProviderError>]>([:])

    init(directory: any KeyDirectory, location: StoreCommand.Location) {
        self.directory = directory
        self.location = location
    }

    /// K_d of `device` for the current epoch of `conversation`; a line's error as a ProviderError.
    func key(conversation: String, device: KeyID) throws(ProviderError) -> ConversationKey {
        let stored: StoredKey
        let shared: Bool
        do throws(KeyDirectoryError) {
            stored = try directory.currentKey(conversation: conversation)
            shared = try directory.isSharedEpoch(conversation: conversation, epoch: stored.item.epoch)
        } catch {
            throw .keyUnavailable(conversation: conversation, detail: "\(error)")
        }
        guard !shared else {
            throw .keyUnavailable(
                conversation: conversation,
                detail: "epoch \(stored.item.epoch) was created before per-device keys (its key went out in format-1 bundles); rotate the conversation first")
        }
        return cache.deviceKey(of: stored.key, for: device)
    }
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.withLock { body(&value) }
    }
}

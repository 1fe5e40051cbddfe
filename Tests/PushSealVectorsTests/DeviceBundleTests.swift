import Foundation
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyDirectorySQLite
import PushSealKeyStore
import PushSealProvider
import PushSealReceiver
import Testing

/// `KeyBundle.seal(from:conversation:…)`: a key directory seals a conversation's key for one
/// device; every refusal is its own `DeviceBundleError`.
@Suite("Sealing a key bundle for a device from a key directory")
struct DeviceBundleTests {
    static let now: Int64 = 1_700_000_000

    static func makeStore() throws -> DeviceKeyStore {
        let directory = NSTemporaryDirectory() + "pushseal-device-bundle-" + UUID().uuidString
        return try DeviceKeyStore(
            directory: directory, masterKey: .keyFile(path: directory + "/master.key", createIfMissing: true), create: true, clock: { now })
    }

    /// A provider directory with a provider key and conversation c1, and a device pinned to it.
    static func setUp() throws -> (directory: SQLiteKeyDirectory, device: DeviceKeyStore, registration: DeviceRegistration) {
        let directory = SQLiteKeyDirectory(store: try makeStore())
        let device = try makeStore()
        let provider = try directory.createProviderKey()
        let registration = try device.createDeviceKey()
        try device.pinProviderKey(provider.publicKey)
        _ = try directory.rotate(conversation: "c1")
        return (directory, device, registration)
    }

    @Test func theCurrentKeyIsSealedForTheDeviceAndInstalls() throws {
        let (directory, device, registration) = try Self.setUp()
        let sealed = try KeyBundle.seal(from: directory, conversation: "c1", device: registration, now: Self.now)
        let current = try directory.currentKey(conversation: "c1")
        #expect(sealed.isCurrent)
        #expect(sealed.item == current.item)
        #expect(sealed.deviceKey == current.key.deviceKey(for: registration.deviceKeyID))
        #expect(try device.install(sealed.bundle) == .installed)
        #expect(try device.key(for: sealed.deviceKey.id).key == sealed.deviceKey)
    }

    @Test func aRetiredEpochIsSealedAsRetired() throws {
        let (directory, device, registration) = try Self.setUp()
        _ = try directory.rotate(conversation: "c1")
        let current = try KeyBundle.seal(from: directory, conversation: "c1", device: registration, now: Self.now)
        #expect(current.isCurrent && current.item.epoch == 2)
        let sealed = try KeyBundle.seal(from: directory, conversation: "c1", epoch: 1, device: registration, now: Self.now)
        #expect(!sealed.isCurrent)
        #expect(sealed.item.epoch == 1)
        #expect(try device.install(current.bundle) == .installed)
        #expect(try device.install(sealed.bundle) == .installedRetired)
    }

    @Test func aNegativeLifetimeMakesAnExpiredBundle() throws {
        let (directory, device, registration) = try Self.setUp()
        let sealed = try KeyBundle.seal(from: directory, conversation: "c1", device: registration, now: Self.now, lifetime: -3_600)
        #expect(throws: KeyBundleError.self) { try device.install(sealed.bundle) }
    }

    /// What `body` throws, as a `DeviceBundleError`.
    static func refusal(_ body: () throws(DeviceBundleError) -> DeviceBundle) -> DeviceBundleError? {
        do throws(DeviceBundleError) {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test func everyRefusalIsTyped() throws {
        let (directory, _, registration) = try Self.setUp()
        #expect(Self.refusal { () throws(DeviceBundleError) in
            try KeyBundle.seal(from: directory, conversation: "none", device: registration, now: Self.now)
        } == .noKeys(conversation: "none"))
        #expect(Self.refusal { () throws(DeviceBundleError) in
            try KeyBundle.seal(from: directory, conversation: "c1", epoch: 9, device: registration, now: Self.now)
        } == .noSuchEpoch(conversation: "c1", epoch: 9, epochs: [1]))
        let unknown = KeyID(bytes: [UInt8](repeating: 1, count: 16))!
        #expect(Self.refusal { () throws(DeviceBundleError) in
            try KeyBundle.seal(from: directory, conversation: "c1", providerKeyID: unknown, device: registration, now: Self.now)
        } == .noProviderKey(unknown))
        #expect(Self.refusal { () throws(DeviceBundleError) in
            try KeyBundle.seal(from: directory, conversation: "c1", device: registration, now: .max, lifetime: 1)
        } == .invalidLifetime(1))

        let bare = SQLiteKeyDirectory(store: try Self.makeStore())
        _ = try bare.rotate(conversation: "c1")
        #expect(Self.refusal { () throws(DeviceBundleError) in
            try KeyBundle.seal(from: bare, conversation: "c1", device: registration, now: Self.now)
        } == .noProviderKey(nil))
    }

    @Test func noCurrentKeyWhenEveryEpochIsPastItsNotAfter() throws {
        let (directory, _, registration) = try Self.setUp()
        _ = try directory.add(ConversationKey.generate(), conversation: "c2", epoch: 1, label: nil, notAfter: Self.now - 1)
        #expect(Self.refusal { () throws(DeviceBundleError) in
            try KeyBundle.seal(from: directory, conversation: "c2", device: registration, now: Self.now)
        } == .noCurrentKey(conversation: "c2"))
    }

    @Test func aRevokedOrUnregisteredDeviceIsRefused() throws {
        let (directory, _, registration) = try Self.setUp()
        let other = try Self.makeStore().createDeviceKey()
        _ = try directory.registerDevice(registration)
        #expect(Self.refusal { () throws(DeviceBundleError) in
            try KeyBundle.seal(from: directory, conversation: "c1", device: other, now: Self.now)
        } == .deviceNotRegistered(other.deviceKeyID))
        _ = try directory.revokeDevice(id: registration.deviceKeyID)
        guard case .deviceNotSealable(registration.deviceKeyID, _)? = Self.refusal({ () throws(DeviceBundleError) in
            try KeyBundle.seal(from: directory, conversation: "c1", device: registration, now: Self.now)
        }) else {
            Issue.record("a revoked device was sealed to")
            return
        }
    }
}

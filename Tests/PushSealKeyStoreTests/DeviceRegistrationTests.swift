import PushSealCore
@testable import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Testing

/// Device registrations in a key directory on SQLite (issue 24 item 3, Docs/KEY-STORE.md §3.7).
@Suite struct DeviceRegistrationTests {
    @Test("register, list, revoke: registering again changes nothing, a revoked device is refused again, revocation keeps its time")
    func registerListRevoke() throws {
        let clock = ManualClock()
        let directory = try makeStore(TemporaryDirectory(), clock: clock)
        let device = try makeStore(TemporaryDirectory(), clock: clock)
        let registration = try device.createDeviceKey()
        #expect(try directory.asDirectory.registeredDevices().isEmpty)
        #expect(storeError { try directory.asDirectory.registeredDevice(id: registration.deviceKeyID) } == .itemNotFound)
        #expect(try directory.asDirectory.requireSealable(deviceKeyID: registration.deviceKeyID) == (), "no registrations: every id is sealable")
        let registered = try directory.asDirectory.registerDevice(registration)
        #expect(registered.id == registration.deviceKeyID && registered.publicKey == registration.publicKey && registered.revokedAt == nil)
        clock.advance(5)
        #expect(try directory.asDirectory.registerDevice(registration) == registered, "registering again changes nothing")
        #expect(try directory.asDirectory.registeredDevices() == [registered])
        #expect(try directory.asDirectory.registeredDevice(id: registered.id).registration == registration)
        let unknown = KeyID(bytes: [UInt8](repeating: 9, count: 16))!
        #expect(storeError { try directory.asDirectory.requireSealable(deviceKeyID: unknown) } == .itemNotFound, "with registrations: an unknown id is refused")
        let revoked = try directory.asDirectory.revokeDevice(id: registered.id)
        #expect(revoked.revokedAt == clock.now)
        clock.advance(5)
        #expect(try directory.asDirectory.revokeDevice(id: registered.id).revokedAt == revoked.revokedAt)
        #expect(try directory.asDirectory.registeredDevices() == [revoked])
        guard case .invalidArgument? = storeError({ try directory.asDirectory.registerDevice(registration) }) else {
            Issue.record("a revoked device was registered again")
            return
        }
        guard case .invalidArgument? = storeError({ try directory.asDirectory.requireSealable(deviceKeyID: registered.id) }) else {
            Issue.record("a revoked device is still sealable")
            return
        }
        #expect(storeError { try directory.asDirectory.revokeDevice(id: unknown) } == .itemNotFound)
    }

    @Test("a registration row edited outside the API (revocation taken back, public key swapped, row copied) does not authenticate")
    func tamperedRows() throws {
        let dir = TemporaryDirectory()
        let directory = try makeStore(dir)
        let a = try makeStore(TemporaryDirectory()).createDeviceKey(), b = try makeStore(TemporaryDirectory()).createDeviceKey()
        try directory.asDirectory.registerDevice(a)
        try directory.asDirectory.registerDevice(b)
        try directory.asDirectory.revokeDevice(id: a.deviceKeyID)
        let raw = try RawDatabase(dir.database)
        try raw.execute("UPDATE devices SET revoked_at = NULL WHERE id = \(sqlBlob(a.deviceKeyID.bytes))")
        guard case .invalidStore? = storeError({ try directory.asDirectory.registeredDevice(id: a.deviceKeyID) }) else {
            Issue.record("an un-revoked row was accepted")
            return
        }
        guard case .invalidStore? = storeError({ try directory.asDirectory.requireSealable(deviceKeyID: a.deviceKeyID) }) else {
            Issue.record("an un-revoked row made the device sealable")
            return
        }
        // b's sealed tag copied onto a fresh row claiming another public key.
        let c = try makeStore(TemporaryDirectory()).createDeviceKey()
        try raw.execute(
            "INSERT INTO devices (id, public_key, created_at, revoked_at, sealed) SELECT \(sqlBlob(c.deviceKeyID.bytes)), \(sqlBlob(c.publicKey)), created_at, NULL, sealed FROM devices WHERE id = \(sqlBlob(b.deviceKeyID.bytes))")
        guard case .invalidStore? = storeError({ try directory.asDirectory.registeredDevice(id: c.deviceKeyID) }) else {
            Issue.record("a copied tag registered another device")
            return
        }
    }

    @Test("format 7 -> 8: a store without the devices table gets it, empty, and registers devices")
    func migrationFromFormat7() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        try store.add(.generate(), conversation: "c", epoch: 1)
        try RawDatabase(dir.database).execute("DROP TABLE devices; PRAGMA user_version = 7")
        let migrated = try reopen(dir)
        #expect(try RawDatabase(dir.database).integer("PRAGMA user_version") == 9)
        #expect(try migrated.asDirectory.registeredDevices().isEmpty)
        let registration = try makeStore(TemporaryDirectory()).createDeviceKey()
        #expect(try migrated.asDirectory.registerDevice(registration).id == registration.deviceKeyID)
    }

    @Test("master-key rotation reseals the registrations (and the provider key pairs and their record)")
    func masterKeyRotation() throws {
        let dir = TemporaryDirectory()
        let directory = try makeStore(dir)
        let provider = try directory.asDirectory.createProviderKey()
        let registration = try makeStore(TemporaryDirectory()).createDeviceKey()
        try directory.asDirectory.registerDevice(registration)
        let rotation = try directory.rotateMasterKey(to: .keyFile(path: dir.file("new.key"), createIfMissing: true))
        #expect(rotation.resealedIdentities == 2)
        let rotated = try DeviceKeyStore(directory: dir.store, masterKey: .keyFile(path: dir.file("new.key")))
        #expect(try rotated.asDirectory.registeredDevice(id: registration.deviceKeyID).registration == registration)
        #expect(try rotated.asDirectory.providerKey().providerKeyID == provider.id)
    }
}

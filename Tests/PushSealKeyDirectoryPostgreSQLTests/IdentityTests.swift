import Dispatch
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyDirectoryPostgreSQL
import Synchronization
import Testing

/// Provider key pairs and device registrations on PostgreSQL (schema version 3, issue 24 item 3):
/// the SQLite store's rules (promotion, the authenticated provider-key record, registrations
/// sealed and row-bound), migrations from version 2, and master-key rotation resealing them.
extension PostgreSQLTests {
@Suite("identities")
struct IdentityTests {
    static func registration() throws -> DeviceRegistration {
        try DeviceRegistration(publicKey: IdentityKeyPair.generate().publicKey)
    }

    @Test func providerKeysArePromotedExplicitlyAndTheRecordIsAuthenticated() throws {
        let uri = try TestServer.freshSchemaURI()
        let master = TestServer.masterKey()
        let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master), create: true)
        #expect(directoryError { _ = try directory.providerKey(id: nil) } == .itemNotFound)
        let first = try directory.createProviderKey()
        #expect(try directory.providerKey(id: nil).providerKeyID == first.id, "the first key is current at once")
        let second = try directory.createProviderKey()
        #expect(try directory.providerKeys() == [first, second])
        #expect(try directory.providerKey(id: nil).providerKeyID == first.id, "a new key waits for its promotion")
        try directory.promoteProviderKey(id: second.id)
        let other = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master))
        #expect(try other.providerKey(id: nil).providerKeyID == second.id, "another node sees the promotion")
        guard case .invalidArgument? = directoryError({ try directory.removeProviderKey(id: second.id) }) else {
            Issue.record("the current provider key was removed while another exists")
            return
        }
        // Tampering: the newest row deleted is providerKeyMissing, never the older key pair.
        try TestServer.psql(uri, "DELETE FROM pushseal_identities WHERE id = '\\x\(TestServer.hex(second.id.bytes))'::bytea")
        #expect(directoryError { _ = try directory.providerKey(id: nil) } == .providerKeyMissing(second.id))
        // An edited record pointing at the older key does not verify.
        try TestServer.psql(uri, "UPDATE pushseal_meta SET value = '\\x\(TestServer.hex(first.id.bytes + [UInt8](repeating: 0, count: 32)))'::bytea WHERE name = 'provider_key'")
        #expect(directoryError { _ = try directory.providerKey(id: nil) } == .providerKeyMissing(nil))
        #expect(directoryError { _ = try directory.createProviderKey() } == .providerKeyMissing(nil))
        // A private key swapped between rows does not authenticate.
        try TestServer.psql(uri, "DELETE FROM pushseal_meta WHERE name = 'provider_key'")
        try TestServer.psql(uri, "UPDATE pushseal_identities SET created_at = created_at + 1")
        guard case .invalidStore? = directoryError({ _ = try directory.providerKeys() }) else {
            Issue.record("an edited provider key row was accepted")
            return
        }
    }

    /// Identity writes from many nodes at once (each instance is its own connection pool, so the
    /// server sees them as separate nodes): the identities' advisory lock serializes them. Without
    /// it, concurrent first creations can each find no provider key and record themselves (the
    /// recorded one then need not be the first key), and a promotion racing a removal can record
    /// a key that is gone (`providerKeyMissing` for every node afterwards) or remove the current
    /// key while others remain.
    @Test func concurrentCreationsPromotionsAndRemovalsKeepOneCurrentProviderKey() throws {
        let nodes = 6
        for round in 0..<4 {
            let uri = try TestServer.freshSchemaURI()
            let master = TestServer.masterKey()
            _ = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master), create: true)
            let directories = try (0..<nodes).map { _ in try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master)) }
            let failures = Mutex<[String]>([])
            // Every node creates its first key at once on an empty directory.
            DispatchQueue.concurrentPerform(iterations: nodes) { node in
                do { _ = try directories[node].createProviderKey() } catch { failures.withLock { $0.append("create: \(error)") } }
            }
            let keys = try directories[0].providerKeys()
            #expect(keys.count == nodes, "round \(round): every creation was kept")
            #expect(try directories[0].providerKey(id: nil).providerKeyID == keys.first?.id, "round \(round): the first key created is the current one")
            // Then each node promotes one key while removing another, all at once.
            DispatchQueue.concurrentPerform(iterations: nodes) { node in
                let promoted = keys[node].id, removed = keys[(node + 1) % nodes].id
                do throws(KeyDirectoryError) { try directories[node].promoteProviderKey(id: promoted) } catch {
                    // Another node removed it first.
                    if case .itemNotFound = error {} else { failures.withLock { $0.append("promote: \(error)") } }
                }
                do throws(KeyDirectoryError) { try directories[node].removeProviderKey(id: removed) } catch {
                    // It is the current one (and others remain), or it went already.
                    switch error {
                    case .invalidArgument, .itemNotFound: break
                    default: failures.withLock { $0.append("remove: \(error)") }
                    }
                }
            }
            #expect(failures.withLock { $0 } == [], "round \(round)")
            // The current key goes only as the last one, so either keys remain and the recorded
            // one is among them, or none remains and there is no current key — never a record of
            // a removed key (providerKeyMissing).
            let remaining = try directories[0].providerKeys().map(\.id)
            for directory in directories {
                if remaining.isEmpty {
                    #expect(directoryError { _ = try directory.providerKey(id: nil) } == .itemNotFound, "round \(round): no key, no current key")
                } else {
                    let current = try directory.providerKey(id: nil).providerKeyID
                    #expect(remaining.contains(current), "round \(round): the recorded provider key exists")
                }
            }
        }
    }

    @Test func devicesRegisterListRevokeAndTamperedRowsDoNotAuthenticate() throws {
        let uri = try TestServer.freshSchemaURI()
        let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(TestServer.masterKey()), create: true)
        let a = try Self.registration(), b = try Self.registration()
        try directory.requireSealable(deviceKeyID: a.deviceKeyID)
        let registered = try directory.registerDevice(a)
        #expect(try directory.registerDevice(a) == registered)
        try directory.registerDevice(b)
        #expect(try directory.registeredDevices().map(\.id).sorted { $0.base64URL < $1.base64URL } == [a.deviceKeyID, b.deviceKeyID].sorted { $0.base64URL < $1.base64URL })
        #expect(try directory.registeredDevice(id: a.deviceKeyID).registration == a)
        let unknown = try Self.registration().deviceKeyID
        #expect(directoryError { try directory.requireSealable(deviceKeyID: unknown) } == .itemNotFound)
        let revoked = try directory.revokeDevice(id: a.deviceKeyID)
        #expect(revoked.revokedAt != nil)
        guard case .invalidArgument? = directoryError({ try directory.requireSealable(deviceKeyID: a.deviceKeyID) }),
              case .invalidArgument? = directoryError({ try directory.registerDevice(a) })
        else {
            Issue.record("a revoked device is still sealable or registrable")
            return
        }
        // Taking the revocation back in SQL does not authenticate.
        try TestServer.psql(uri, "UPDATE pushseal_devices SET revoked_at = NULL WHERE id = '\\x\(TestServer.hex(a.deviceKeyID.bytes))'::bytea")
        guard case .invalidStore? = directoryError({ try directory.requireSealable(deviceKeyID: a.deviceKeyID) }) else {
            Issue.record("an un-revoked row made the device sealable")
            return
        }
    }

    @Test func aVersion2SchemaMigratesToIdentitiesAndMasterKeyRotationResealsThem() throws {
        let uri = try TestServer.freshSchemaURI()
        let master = TestServer.masterKey()
        let created = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master), create: true)
        let stored = try created.rotate(conversation: "c", label: nil, key: nil)
        // The schema as version 2 left it.
        try TestServer.psql(uri, "DROP TABLE pushseal_identities; DROP TABLE pushseal_devices; UPDATE pushseal_schema_version SET version = 2")
        let migrated = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master))
        #expect(try TestServer.psql(uri, "SELECT version FROM pushseal_schema_version") == "3")
        #expect(try migrated.currentKey(conversation: "c").key == stored.key)
        let provider = try migrated.createProviderKey()
        let registration = try Self.registration()
        try migrated.registerDevice(registration)
        try migrated.revokeDevice(id: registration.deviceKeyID)

        let newMaster = TestServer.masterKey()
        let rotation = try migrated.rotateMasterKey(to: .bytes(newMaster))
        #expect(rotation.resealedKeys == 1 && rotation.resealedIdentities == 2)
        let reopened = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(newMaster))
        #expect(try reopened.providerKey(id: nil).providerKeyID == provider.id)
        #expect(try reopened.registeredDevice(id: registration.deviceKeyID).revokedAt != nil)
        // Under the old key the rows no longer open.
        #expect(directoryError { _ = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master)) } != nil)
    }
}
}

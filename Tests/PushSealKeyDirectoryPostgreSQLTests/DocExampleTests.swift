import PushSealCore
import PushSealProvider
import PushSealKeyDirectoryPostgreSQL
import PushSealKeyStore
import Testing
import PushSealPlatform

extension PostgreSQLTests {
    /// The PROVIDER.md §6.1 and KEY-STORE.md §9 examples (keep in sync), against the throwaway
    /// cluster instead of db.internal and with a key file in a temporary directory.
    @Suite("docs examples")
    struct DocExampleTests {
        @Test func providerMultiNodeExample() throws {
            let uri = try TestServer.freshSchemaURI()
            let keyFile = "/tmp/pushseal-doc-\(TestServer.hex(SystemRandom.bytes(count: 6))).key"
            defer { _ = try? TestServer.run("/bin/rm", ["-f", keyFile]) }
            let sealer = try NotificationSealer()
            let apnsOptions = APNsOptions()
            let content = NotificationContent(conversationID: "conv-42", messageID: "m_1", sentAt: 1_700_000_000, body: "hi")

            // KEY-STORE.md §9
            let created = try PostgreSQLKeyDirectory(
                uri: uri, masterKey: .keyFile(path: keyFile, createIfMissing: true), create: true)
            let first = try created.rotate(conversation: "conv-42")

            // PROVIDER.md §6.1
            let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .keyFile(path: keyFile))
            let keys = try PostgreSQLKeyProvider(directory: directory, timeToLive: 5)
            defer { keys.stop() }
            let request = try sealer.seal(content, keyProvider: keys, options: apnsOptions)
            #expect(!request.body.isEmpty)
            #expect(try keys.currentKey(conversation: "conv-42") == first.key)
            let next = try directory.rotate(conversation: content.conversationID)
            #expect(try PostgreSQLTests.CacheTests.eventually(5) { try keys.currentKey(conversation: "conv-42") == next.key })
        }

        /// PROVIDER.md §6.1, "Bundles and device registrations on PostgreSQL" (keep in sync): the
        /// bundle it seals installs on the device.
        @Test func providerBundlesExample() throws {
            let uri = try TestServer.freshSchemaURI()
            let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(TestServer.masterKey()), create: true)
            let device = try DeviceKeyStore(directory: "/tmp/pushseal-doc-\(TestServer.hex(SystemRandom.bytes(count: 6)))", masterKey: .bytes(TestServer.masterKey()), create: true)
            let registration = try device.createDeviceKey()
            let deviceID = registration.deviceKeyID
            _ = try directory.rotate(conversation: "c1")
            let now = Int64(time(nil))

            // PROVIDER.md §6.1
            let provider = try directory.createProviderKey()        // the first one is current at once
            try directory.registerDevice(registration)              // the JSON of `pushseal device init`
            let current = try directory.currentKey(conversation: "c1")
            let bundle = try KeyBundle.seal(
                conversationKey: current.key, conversation: "c1", epoch: current.item.epoch, since: current.item.createdAt,
                retireBy: nil, expires: now + KeyBundle.defaultLifetime,
                provider: try directory.providerKey(id: nil), device: try directory.registeredDevice(id: deviceID).registration)

            try device.pinProviderKey(provider.publicKey)
            #expect(try device.install(bundle) == .installed)
        }
    }
}

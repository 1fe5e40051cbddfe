import PushSealCore
import PushSealKeyStore
import PushSealProvider
import PushSealKeyDirectoryPostgreSQL
import Testing

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
    }
}

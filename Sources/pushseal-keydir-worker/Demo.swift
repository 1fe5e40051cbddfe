import PushSealCore
import PushSealKeyStore
import PushSealProvider
import PushSealKeyDirectoryPostgreSQL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `demo --uri URI --out DIR`: the provider side of `pushseal demo` on a shared PostgreSQL key
/// directory, as two backend nodes would run it (scripts/demo.sh --postgres):
///
/// 1. node A creates the directory (master key file DIR/master.key, 0600) and rotates
///    `conv-demo` to epoch 1;
/// 2. node B (its own connections, the same master key) seals a notification with the key from
///    its cache (PostgreSQLKeyProvider) into DIR/payload-1.json;
/// 3. node A rotates to epoch 2; node B's cache follows the notification, and B seals
///    DIR/payload-2.json under epoch 2;
/// 4. writes DIR/device-epoch-1.key and DIR/device-epoch-2.key (base64url), standing in for the
///    delivery of K to the device over the app's E2EE channel, for `pushseal open`.
enum Demo {
    static func run(uri: String, out: String) throws {
        let master = MasterKeySource.keyFile(path: out + "/master.key", createIfMissing: true)
        let nodeA = try PostgreSQLKeyDirectory(uri: uri, masterKey: master, create: true)
        emit("directory  \(nodeA.uri) (schema version \(PostgreSQLKeyDirectory.supportedSchemaVersion)\(nodeA.createdSchema ? ", created" : ""))")
        _ = try nodeA.removeConversation("conv-demo")
        let first = try nodeA.rotate(conversation: "conv-demo")
        emit("node A     rotated conv-demo to epoch \(first.item.epoch), kid \(first.item.keyID)")

        let nodeB = try PostgreSQLKeyProvider(
            directory: try PostgreSQLKeyDirectory(uri: uri, masterKey: .keyFile(path: out + "/master.key")), timeToLive: 5)
        defer { nodeB.stop() }
        let sealer = try NotificationSealer()
        let content = NotificationContent(
            conversationID: "conv-demo", messageID: "m_1", sentAt: Int64(time(nil)), title: "Ana", body: "Sealed on node B, key from PostgreSQL")
        try write(out + "/payload-1.json", try sealer.seal(content, keyProvider: nodeB, options: APNsOptions()).body)
        emit("node B     sealed payload-1.json under epoch 1 (key from its cache)")

        let second = try nodeA.rotate(conversation: "conv-demo")
        let committed = Bench.now()
        while try nodeB.currentKey(conversation: "conv-demo") != second.key {
            guard Bench.now() - committed < 5 else { fail("node B did not see the rotation within its 5 s time to live") }
            usleep(200)
        }
        emit("node A     rotated conv-demo to epoch \(second.item.epoch); node B used it \(String((Bench.now() - committed) * 1000).prefix(5)) ms after the commit (LISTEN/NOTIFY)")
        var later = content
        later.messageID = "m_2"
        later.body = "Sealed on node B under epoch 2"
        try write(out + "/payload-2.json", try sealer.seal(later, keyProvider: nodeB, options: APNsOptions()).body)
        emit("node B     sealed payload-2.json under epoch 2")

        for stored in [first, second] {
            try write(out + "/device-epoch-\(stored.item.epoch).key", Array(stored.key.withUnsafeBytes { Base64URL.encode($0) }.utf8) + [10])
        }
        emit("device     keys of epochs 1 and 2 written (in an app: delivered over its E2EE channel)")
    }

    static func write(_ path: String, _ bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { fail("cannot write \(path)") }
        defer { close(fd) }
        guard bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else { fail("cannot write \(path)") }
    }
}

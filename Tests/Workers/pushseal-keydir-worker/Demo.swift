import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealProvider
import PushSealKeyDirectoryPostgreSQL
import PushSealPlatform

/// `demo --uri URI --out DIR`: the provider side of `pushseal demo` on a shared PostgreSQL key
/// directory, as two backend nodes would run it (scripts/demo.sh --postgres):
///
/// 1. node A creates the directory (master key file DIR/master.key, 0600), its provider key pair
///    (kept on PostgreSQL, sealed under the master key) and rotates `conv-demo` to epoch 1;
/// 2. the device (a store at DIR/device, as `pushseal device init` makes it) pins the provider
///    public key, and node A registers the device's registration in the directory;
/// 3. node B (its own connections, the same master key) seals a notification for that device
///    with the key from its cache (PostgreSQLKeyProvider) into DIR/payload-1.json, and the key
///    bundle of epoch 1 for it into DIR/bundle-1.txt — provider key and registration read from
///    PostgreSQL alone, no local store;
/// 4. node A rotates to epoch 2; node B's cache follows the notification, and B seals
///    DIR/payload-2.json and DIR/bundle-2.txt under epoch 2.
/// scripts/demo.sh then installs each bundle into the device store (`pushseal bundle install`)
/// and opens the payloads there (`pushseal open --store`).
enum Demo {
    static func run(uri: String, out: String) throws {
        let master = MasterKeySource.keyFile(path: out + "/master.key", createIfMissing: true)
        let nodeA = try PostgreSQLKeyDirectory(uri: uri, masterKey: master, create: true)
        emit("directory  \(nodeA.uri) (schema version \(PostgreSQLKeyDirectory.supportedSchemaVersion)\(nodeA.createdSchema ? ", created" : ""))")
        _ = try nodeA.removeConversation("conv-demo")
        let providerKey: ProviderKeyInfo
        if let existing = try nodeA.providerKeys().first(where: { (try? nodeA.providerKey(id: nil).providerKeyID) == $0.id }) {
            providerKey = existing
        } else {
            providerKey = try nodeA.createProviderKey()
        }
        emit("node A     provider key \(providerKey.id) (its private half sealed in PostgreSQL)")
        let first = try nodeA.rotate(conversation: "conv-demo")
        emit("node A     rotated conv-demo to epoch \(first.item.epoch), kid \(first.item.keyID)")

        let device = try DeviceKeyStore(
            directory: out + "/device", masterKey: .keyFile(path: out + "/device.master.key", createIfMissing: true), create: true)
        let registration = try device.createDeviceKey()
        try device.pinProviderKey(providerKey.publicKey)
        try nodeA.registerDevice(registration)
        emit("device     device key \(registration.deviceKeyID), provider key pinned; node A registered it in PostgreSQL")

        let directoryB = try PostgreSQLKeyDirectory(uri: uri, masterKey: .keyFile(path: out + "/master.key"))
        let nodeB = try PostgreSQLKeyProvider(directory: directoryB, timeToLive: 5)
        defer { nodeB.stop() }
        let sealer = try NotificationSealer()
        /// Node B seals `content` for the registered device and that epoch's bundle, from PostgreSQL alone.
        func sealForDevice(_ content: NotificationContent, epoch: Int64) throws {
            let key = try nodeB.currentKey(conversation: "conv-demo")
            let stored = try directoryB.currentKey(conversation: "conv-demo")
            guard stored.key == key, stored.item.epoch == epoch else { fail("node B's cache and the directory disagree on epoch \(epoch)") }
            let registered = try directoryB.registeredDevice(id: registration.deviceKeyID)
            let bundle = try KeyBundle.seal(
                conversationKey: key, conversation: "conv-demo", epoch: stored.item.epoch, since: stored.item.createdAt, retireBy: nil,
                expires: Int64(time(nil)) + KeyBundle.defaultLifetime, provider: try directoryB.providerKey(id: nil), device: registered.registration)
            try write(out + "/bundle-\(epoch).txt", Array(bundle.text.utf8) + [10])
            let request = try sealer.seal(content, conversationKey: key, device: registered.id, options: APNsOptions())
            try write(out + "/payload-\(epoch).json", request.body)
        }
        let content = NotificationContent(
            conversationID: "conv-demo", messageID: "m_1", sentAt: Int64(time(nil)), title: "Ana", body: "Sealed on node B, key from PostgreSQL")
        try sealForDevice(content, epoch: 1)
        emit("node B     sealed payload-1.json for the device under epoch 1 (key from its cache) and bundle-1.txt (provider key and registration from PostgreSQL)")

        let second = try nodeA.rotate(conversation: "conv-demo")
        let committed = MonotonicClock.seconds()
        while try nodeB.currentKey(conversation: "conv-demo") != second.key {
            guard MonotonicClock.seconds() - committed < 5 else { fail("node B did not see the rotation within its 5 s time to live") }
            usleep(200)
        }
        emit("node A     rotated conv-demo to epoch \(second.item.epoch); node B used it \(String((MonotonicClock.seconds() - committed) * 1000).prefix(5)) ms after the commit (LISTEN/NOTIFY)")
        var later = content
        later.messageID = "m_2"
        later.body = "Sealed on node B under epoch 2"
        try sealForDevice(later, epoch: 2)
        emit("node B     sealed payload-2.json and bundle-2.txt under epoch 2")
    }

    static func write(_ path: String, _ bytes: [UInt8]) throws {
        guard (try? FileSystem.writeFile(bytes, to: path, permissions: 0o600)) != nil else { fail("cannot write \(path)") }
    }
}

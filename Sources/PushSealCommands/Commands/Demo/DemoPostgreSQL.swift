import PushSealCLIKit
import PushSealCore
import PushSealJSON
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealPlatform
import PushSealProvider
import PushSealReceiver

/// `pushseal demo --postgres URI`: the walk-through's provider side on a shared PostgreSQL key
/// directory, as two backend nodes run it, then the device side — all in this process (the
/// companion `pushseal-full`, whose backend opens the directory and its listening cache):
///
/// 1. node A creates the directory (master key file `provider.master.key`, 0600) and its
///    provider key pair (kept on PostgreSQL, sealed under the master key), and rotates
///    `conv-demo` to epoch 1;
/// 2. the device (a store in `device/`, as `pushseal device init` makes it) pins the provider
///    public key, and node A registers the device's registration in the directory;
/// 3. node B (its own connections, the same master key) seals a notification for that device
///    with the key from its listening cache into `payload-1.json`, and the key bundle of epoch 1
///    for it into `bundle-1.txt` — provider key and registration read from PostgreSQL alone, no
///    local store;
/// 4. node A rotates to epoch 2; node B's cache follows the notification (the delay after the
///    commit is printed), and B seals `payload-2.json` and `bundle-2.txt` under epoch 2;
/// 5. the device installs each bundle into its store and opens each payload through it, each
///    printed as `pushseal bundle install` and `pushseal open --store` print them; each must
///    install and decrypt (under its epoch), or the demo fails.
struct DemoPostgreSQL {
    static let conversation = "conv-demo"
    static let timeToLive = 5.0

    let workspace: DemoWorkspace
    let backend: PostgreSQLBackend
    let uri: String

    /// Runs every step, giving each line of the walk-through (without its newline) to `emit`;
    /// a step that does not behave as expected stops it with a failure.
    func run(emit: (String) -> Void) throws(CLIError) {
        do {
            try walkThrough(emit: emit)
        } catch let error as CLIError {
            throw error
        } catch {
            throw .failure("the PostgreSQL walk-through stopped: \(error)")
        }
    }

    private func walkThrough(emit: (String) -> Void) throws {
        let masterKeyFile = workspace.path(DemoWorkspace.providerMasterKey)
        let (nodeA, created) = try backend.open(uri, masterKeyFile, true, systemClock)
        emit(row("directory", "\(backend.redacted(uri)) (schema version \(backend.schemaVersion)\(created ? ", created" : ""))"))
        _ = try nodeA.removeConversation(Self.conversation)
        let current = try? nodeA.providerKey(id: nil).providerKeyID
        let providerKey = try nodeA.providerKeys().first { $0.id == current } ?? nodeA.createProviderKey()
        emit(row("node A", "provider key \(providerKey.id) (its private half sealed in PostgreSQL)"))
        let first = try nodeA.rotate(conversation: Self.conversation, label: nil, key: nil)
        emit(row("node A", "rotated \(Self.conversation) to epoch \(first.item.epoch), kid \(first.item.keyID)"))

        let device = try DeviceKeyStore(
            directory: workspace.path(DemoWorkspace.deviceStore),
            masterKey: .keyFile(path: workspace.path(DemoWorkspace.deviceMasterKey), createIfMissing: true), create: true)
        let registration = try device.createDeviceKey()
        try device.pinProviderKey(providerKey.publicKey)
        _ = try nodeA.registerDevice(registration)
        emit(row("device", "device key \(registration.deviceKeyID), provider key pinned; node A registered it in PostgreSQL"))

        let (directoryB, _) = try backend.open(uri, masterKeyFile, false, systemClock)
        let nodeB = try backend.listeningCache(directoryB, Self.timeToLive)
        let sealer = try NotificationSealer()
        /// Node B seals `content` for the registered device and that epoch's bundle, from PostgreSQL alone.
        func sealForDevice(_ content: NotificationContent, epoch: Int64) throws {
            let key = try nodeB.currentKey(conversation: Self.conversation)
            let stored = try directoryB.currentKey(conversation: Self.conversation)
            guard stored.key == key, stored.item.epoch == epoch else {
                throw CLIError.failure("node B's cache and the directory disagree on epoch \(epoch)")
            }
            let registered = try directoryB.registeredDevice(id: registration.deviceKeyID)
            let sealed = try KeyBundle.seal(
                from: directoryB, conversation: Self.conversation, epoch: epoch, device: registered.registration, now: systemClock())
            try write(Array(sealed.bundle.text.utf8) + [10], to: "bundle-\(epoch).txt")
            let request = try sealer.seal(content, conversationKey: key, device: registered.id, options: APNsOptions())
            try write(request.body, to: "payload-\(epoch).json")
        }
        var content = NotificationContent(
            conversationID: Self.conversation, messageID: "m_1", sentAt: systemClock(), title: "Ana", body: "Sealed on node B, key from PostgreSQL")
        try sealForDevice(content, epoch: 1)
        emit(row("node B", "sealed payload-1.json for the device under epoch 1 (key from its cache) and bundle-1.txt (provider key and registration from PostgreSQL)"))

        let second = try nodeA.rotate(conversation: Self.conversation, label: nil, key: nil)
        let committed = MonotonicClock.seconds()
        while try nodeB.currentKey(conversation: Self.conversation) != second.key {
            guard MonotonicClock.seconds() - committed < Self.timeToLive else {
                throw CLIError.failure("node B did not see the rotation within its \(Int(Self.timeToLive)) s time to live")
            }
            usleep(200)
        }
        let delay = (MonotonicClock.seconds() - committed) * 1_000
        emit(row("node A", "rotated \(Self.conversation) to epoch \(second.item.epoch); node B used it \(String(delay).prefix(5)) ms after the commit (LISTEN/NOTIFY)"))
        content.messageID = "m_2"
        content.body = "Sealed on node B under epoch 2"
        try sealForDevice(content, epoch: 2)
        emit(row("node B", "sealed payload-2.json and bundle-2.txt under epoch 2"))

        for epoch: Int64 in [1, 2] {
            try install("bundle-\(epoch).txt", into: device, epoch: epoch, emit: emit)
            try open("payload-\(epoch).json", epoch: epoch, device: device, emit: emit)
        }
    }

    /// Installs a bundle file into the device store, printed as `pushseal bundle install` prints it.
    private func install(_ file: String, into device: DeviceKeyStore, epoch: Int64, emit: (String) -> Void) throws {
        emit(row("device", "pushseal bundle install \(file):"))
        let bundle = try KeyBundle(text: BundleCommand.bundleText(try workspace.read(file)))
        let installed = try device.installReportingConversation(bundle)
        emit(BundleCommand.installationJSON(installed))
        guard installed.installation == .installed, installed.epoch == epoch else {
            throw CLIError.failure("the device did not install epoch \(epoch) from \(file) (\(installed.installation.rawValue))")
        }
    }

    /// Opens a payload file through the device store, printed as `pushseal open --store` prints it.
    private func open(_ file: String, epoch: Int64, device: DeviceKeyStore, emit: (String) -> Void) throws {
        emit(row("device", "pushseal open --store \(file):"))
        let receiver = Receiver(keySource: KeyStoreKeySource(
            directory: workspace.path(DemoWorkspace.deviceStore), masterKey: .keyFile(path: workspace.path(DemoWorkspace.deviceMasterKey))))
        let result = receiver.open(.json(try workspace.read(file)))
        var writer = JSONWriter()
        writer.append(ReceivedNotificationJSON.value(of: result))
        emit(writer.text)
        let used = try device.items().first { $0.keyID == result.keyID }
        guard result.outcome == .decrypted, used?.epoch == epoch else {
            throw CLIError.failure("the device did not decrypt \(file) under epoch \(epoch) (\(result.reason?.rawValue ?? result.outcome.rawValue))")
        }
    }

    private func write(_ bytes: [UInt8], to file: String) throws {
        try FileSystem.writeFile(bytes, to: workspace.path(file), permissions: 0o600)
    }

    /// `label` padded to the walk-through's column, then `text`.
    private func row(_ label: String, _ text: String) -> String {
        label + String(repeating: " ", count: max(1, 11 - label.count)) + text
    }
}

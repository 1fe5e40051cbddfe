import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import PushSealProvider
import PushSealReceiver
import PushSealJSON
import PushSealPlatform

/// The walk-through: stores, provisioning, sealing and opening, fallbacks — through the library
/// APIs (`SQLiteKeyDirectory`, `DeviceKeyStore`, `NotificationSealer`, `Receiver` over `KeyStoreKeySource`), on the frozen
/// clock `now`, recording one ``DemoStep`` per action.
///
/// A library error that stops the walk-through (a store that cannot be created, a file that
/// cannot be written) is thrown as a `CLIError` naming the action; the steps recorded so far are
/// still reported. Deviations from the expected outcomes are recorded in the steps, never thrown.
struct DemoRun {
    let workspace: DemoWorkspace
    /// The demo's time: the system clock read once, so every component agrees on "now" and the
    /// outcomes do not depend on how long the run takes.
    let now: Int64
    var steps: [DemoStep] = []

    private let clock: SecondsClock
    private var sealer: NotificationSealer?
    private var provider: SQLiteKeyDirectory?
    private var device: DeviceKeyStore?
    private var fileCount = 0
    /// Every key the device was given (the logout wipe must remove exactly these).
    private var deviceKeyCount = 0

    /// A payload the provider sealed and the demo wrote to a file.
    struct Sealed {
        let notification: DemoNotification
        let file: String
        let keyID: KeyID
    }

    init(workspace: DemoWorkspace, now: Int64) {
        self.workspace = workspace
        self.now = now
        let frozen = now
        clock = { frozen }
    }

    /// Runs every step in order.
    mutating func run() throws(CLIError) {
        let clock = self.clock
        sealer = try Self.perform("creating the sealer") { () throws(ProviderError) in try NotificationSealer(clock: clock) }
        try workspace.preparePayloadDirectory()
        let provider = try createStore(
            "create-provider-store", title: "Provider key directory (your backend)",
            directory: DemoWorkspace.providerStore, masterKey: DemoWorkspace.providerMasterKey)
        let device = try createStore(
            "create-device-store", title: "Device store (shared by the app and its notification extension)",
            directory: DemoWorkspace.deviceStore, masterKey: DemoWorkspace.deviceMasterKey)
        self.provider = SQLiteKeyDirectory(store: provider)
        self.device = device

        try enrollDevice()
        try provision(.aliceBob, stepName: "provision-alice-bob")
        try provision(.hike, stepName: "provision-group")

        let chat = try seal(DemoNotifications.chatMessage(now: now))
        try open(chat, step: "open-chat-message", title: "Open the chat message on the device", .init(text: "content", epoch: 1))
        let long = try seal(DemoNotifications.longMessage(now: now))
        try open(long, step: "open-long-message", title: "Open the long message on the device",
                 .init(truncated: true, text: "truncated content", epoch: 1))
        let group = try seal(DemoNotifications.groupMessage(now: now))
        try open(group, step: "open-group-message", title: "Open the communication notification on the device",
                 .init(text: "content", epoch: 1, sender: "Carol Diaz (user:carol)"))
        let inFlight = try seal(DemoNotifications.inFlight(now: now))
        try rotate(.aliceBob)
        let afterRotation = try seal(DemoNotifications.afterRotation(now: now), withBundle: true)
        try open(afterRotation, step: "open-after-rotation", title: "Open the first message of the new epoch (its key bundle rides along)",
                 .init(text: "content", epoch: 2, keyBundle: "installed"))
        deviceKeyCount += 1
        try open(inFlight, step: "open-in-flight", title: "Open the in-flight message (old epoch, within its grace period)",
                 .init(text: "content", epoch: 1)) { step in
            step.row("payload", "\(inFlight.file), sealed under epoch 1 before the rotation, delivered now")
        }
        let contentFree = try seal(DemoNotifications.contentFree(now: now))
        try open(contentFree, step: "open-content-free", title: "Open the content-free notification (the app fetches the message)",
                 .init(requiresFetch: true, text: "placeholder", epoch: 1))

        try tamper(chat)
        try open(chat, step: "duplicate-delivery", title: "Duplicate delivery: the chat message arrives a second time",
                 section: .fallbacks, .init(duplicate: true, text: "content", epoch: 1)) { step in
            step.row("payload", "\(chat.file) again (APNs may deliver twice; the extension may run twice)")
        }
        let stale = try seal(DemoNotifications.stale(now: now), section: .fallbacks)
        try open(stale, step: "open-stale", title: "Open the stale notification", section: .fallbacks,
                 .init(outcome: .fallback, reason: .stale, text: "placeholder"))
        try removedMemberForgery(.aliceBob)
        try refuseBundle(forged: true)
        try refuseBundle(forged: false)
        try logoutWipe()
        let afterLogout = try seal(DemoNotifications.afterLogout(now: now), section: .fallbacks)
        try open(afterLogout, step: "open-after-logout", title: "Open a message that arrives after the logout wipe",
                 section: .fallbacks, .init(outcome: .fallback, reason: .unknownKey, text: "placeholder"))
    }

    // MARK: Stores

    private mutating func createStore(_ name: String, title: String, directory: String, masterKey: String) throws(CLIError) -> DeviceKeyStore {
        var step = DemoStep(name, section: .stores, title: title)
        let store = try Self.perform("creating the store '\(directory)'") { () throws(KeyDirectoryError) in
            try DeviceKeyStore(
                directory: workspace.path(directory), masterKey: .keyFile(path: workspace.path(masterKey), createIfMissing: true),
                create: true, clock: clock)
        }
        let file = directory + "/" + DeviceKeyStore.fileName
        step.expect("storeFile", "created", FileSystem.exists(workspace.path(file)) ? "created" : "missing")
        step.expect("storeFileMode", "0600", Self.octal(workspace.permissions(of: file)))
        step.expect("masterKeyMode", "0600", Self.octal(workspace.permissions(of: masterKey)))
        step.expect("keys", 0, Int64(try Self.perform("listing '\(directory)'") { () throws(KeyDirectoryError) in try store.items().count }))
        step.files = [file, masterKey]
        step.row("store", "\(file) (SQLite, mode \(Self.octal(workspace.permissions(of: file)) ?? "?"))")
        step.row("master key", "\(masterKey) (32 random bytes, mode \(Self.octal(workspace.permissions(of: masterKey)) ?? "?"), kept outside the store directory)")
        steps.append(step)
        return store
    }

    // MARK: Keys

    /// Generates epoch 1 on the provider, exports it, and adds it to the device under the same
    /// conversation and epoch.
    private mutating func provision(_ conversation: DemoConversation, stepName: String) throws(CLIError) {
        let (provider, device) = (self.provider!, self.device!)
        var step = DemoStep(stepName, section: .provisioning, title: conversation.name)
        let generated = try Self.perform("generating a key for \(conversation.id)") { () throws(KeyDirectoryError) in
            try provider.rotate(conversation: conversation.id, label: conversation.name)
        }
        try handOver(generated.item.keyID, from: provider, to: device, label: conversation.name)
        try checkDevice(holds: generated, &step)
        step.row("provider", "generated epoch \(generated.item.epoch) for \(conversation.id), kid \(generated.item.keyID)")
        step.row("device", "installed epoch \(generated.item.epoch) from a key bundle sealed to its device key (no key in clear, never printed)")
        step.detail("conversation", .string(conversation.id))
        step.detail("epoch", DemoJSON.integer(generated.item.epoch))
        step.detail("kid", .string(generated.item.keyID.base64URL))
        steps.append(step)
    }

    /// The provider rotates (a member's device left): epoch 1 is retired now, and the device learns
    /// epoch 2 in band, from its first notification.
    private mutating func rotate(_ conversation: DemoConversation) throws(CLIError) {
        let (provider, device) = (self.provider!, self.device!)
        var step = DemoStep("rotate-alice-bob", section: .notifications, title: "Key rotation: \(conversation.name) moves to epoch 2")
        let rotated = try Self.perform("rotating \(conversation.id)") { () throws(KeyDirectoryError) in
            try provider.rotate(conversation: conversation.id, label: conversation.name)
        }
        let providerItems = try Self.perform("listing the provider's keys") { () throws(KeyDirectoryError) in
            try provider.items(conversation: conversation.id)
        }
        let current = try Self.perform("reading the current key") { () throws(KeyDirectoryError) in
            try provider.currentKey(conversation: conversation.id)
        }
        let deviceItems = try Self.perform("listing the device's keys") { () throws(KeyDirectoryError) in
            try device.items(conversation: conversation.id)
        }
        let retiring = providerItems.first { $0.epoch == 1 }
        step.expect("providerCurrentEpoch", 2, current.item.epoch)
        step.expect("previousEpochNotAfter", now, retiring?.notAfter)
        step.expect("deviceEpochs", .array([DemoJSON.integer(1)]), .array(deviceItems.map { DemoJSON.integer($0.epoch) }))
        step.row("why", "Bob signed out of his old tablet: new notifications must use a key it never had")
        step.row("provider", "epoch 2 is current (kid \(rotated.item.keyID)); epoch 1 is retired now")
        step.row("retired", "epoch 1 opens what was sent before now for \(DeviceKeyStore.defaultGracePeriod / 86_400) days; later ts: retired_key")
        step.row("device", "holds epoch 1 only: no app sync happens; epoch 2 arrives in band, with its first notification, and retires epoch 1 there too")
        step.detail("conversation", .string(conversation.id))
        step.detail("epoch", DemoJSON.integer(rotated.item.epoch))
        step.detail("kid", .string(rotated.item.keyID.base64URL))
        step.detail("previousEpochNotAfter", retiring?.notAfter.map(DemoJSON.integer) ?? .null)
        steps.append(step)
    }

    /// The device creates its X25519 device key and pins the provider's public key (received
    /// over the app's authenticated login channel); the provider creates its provider key.
    private mutating func enrollDevice() throws(CLIError) {
        let (provider, device) = (self.provider!, self.device!)
        var step = DemoStep("enroll-device", section: .provisioning, title: "Device identity: device key, provider key, pinning")
        let providerKey = try Self.perform("creating the provider key") { () throws(KeyDirectoryError) in try provider.createProviderKey() }
        let registration = try Self.perform("creating the device key") { () throws(KeyDirectoryError) in try device.createDeviceKey() }
        let pinned = try Self.perform("pinning the provider key") { () throws(KeyDirectoryError) in try device.pinProviderKey(providerKey.publicKey) }
        step.expect("pinnedProviderKeyId", providerKey.id.base64URL, pinned.base64URL)
        step.expect("registrationChecks", true, (try? DeviceRegistration(json: Array(registration.json.utf8))) == registration)
        step.row("provider", "provider key \(providerKey.id) (X25519; the private half sealed in the key directory)")
        step.row("device", "device key \(registration.deviceKeyID); registration sent to the backend with the push token:")
        step.row("registration", registration.json)
        step.row("pinned", "the device accepts key bundles from provider key \(pinned) only (HPKE auth mode)")
        step.detail("registration", .string(registration.json))
        step.detail("providerKeyId", .string(providerKey.id.base64URL))
        steps.append(step)
    }

    /// Delivers a key from the provider to the device as a key bundle (SPEC §16): sealed to the
    /// device's registration with the provider key, installed into the device store. No key
    /// travels in clear; the app's API carries these bytes (out of band).
    @discardableResult
    private mutating func handOver(_ id: KeyID, from provider: SQLiteKeyDirectory, to device: DeviceKeyStore, label: String) throws(CLIError) -> KeyBundle {
        let exported = try Self.perform("reading key \(id)") { () throws(KeyDirectoryError) in try provider.key(for: id) }
        let bundle = try bundle(for: exported)
        let installation = try Self.perform("installing the bundle of key \(id)") { () throws(KeyBundleError) in try device.install(bundle) }
        guard installation == .installed else { throw .failure("demo stopped: the bundle of key \(id) was \(installation.rawValue)") }
        deviceKeyCount += 1
        return bundle
    }

    /// The bundle of a provider key's device key for the device, sealed by the provider's
    /// `KeyBundle.seal(from:…)` with the directory's current provider key: since = the epoch's
    /// created time, no retire-by while it is current, expires = now + `lifetime` (30 days unless
    /// given; negative: already expired).
    private func bundle(for stored: StoredKey, lifetime: Int64 = KeyBundle.defaultLifetime) throws(CLIError) -> KeyBundle {
        let (provider, device) = (self.provider!, self.device!)
        let registration = try Self.perform("reading the device registration") { () throws(KeyDirectoryError) in try device.deviceRegistration() }
        return try Self.perform("sealing a key bundle") { () throws(DeviceBundleError) in
            try KeyBundle.seal(
                from: provider, conversation: stored.item.conversation, epoch: stored.item.epoch, device: registration, now: now,
                lifetime: lifetime).bundle
        }
    }

    /// The device's own key K_d of the provider's key K (SPEC §4.4).
    private func deviceKey(of key: ConversationKey) throws(CLIError) -> ConversationKey {
        let device = self.device!
        let registration = try Self.perform("reading the device registration") { () throws(KeyDirectoryError) in try device.deviceRegistration() }
        return key.deviceKey(for: registration.deviceKeyID)
    }

    /// The device holds exactly its own key of the provider's key (never K itself), under the same
    /// conversation and epoch.
    private func checkDevice(holds provided: StoredKey, _ step: inout DemoStep) throws(CLIError) {
        let device = self.device!
        let expected = try deviceKey(of: provided.key)
        let held = try Self.perform("reading key \(expected.id) on the device") { () throws(KeyDirectoryError) in
            try device.key(for: expected.id)
        }
        step.expect("conversation", provided.item.conversation, held.item.conversation)
        step.expect("epoch", provided.item.epoch, held.item.epoch)
        step.expect("kid", expected.id.base64URL, held.item.keyID.base64URL)
        step.expect("sameKey", true, held.key == expected)
        step.expect("conversationKeyOnDevice", false, (try? device.key(for: provided.item.keyID)) != nil)
    }

    // MARK: Sealing

    /// Seals with the provider's current key, writes the payload file, and examines it as the
    /// push service would see it.
    private mutating func seal(
        _ notification: DemoNotification, section: DemoStep.Section = .notifications, withBundle: Bool = false
    ) throws(CLIError) -> Sealed {
        let (provider, sealer) = (self.provider!, self.sealer!)
        // Sealed for the device: under its own key K_d of the conversation's current key K.
        let current = try Self.perform("reading the current key") { () throws(KeyDirectoryError) in
            try provider.currentKey(conversation: notification.content.conversationID)
        }
        let sealingKey = try deviceKey(of: current.key)
        var keyBundle: KeyBundle?
        if withBundle { keyBundle = try bundle(for: current) }
        let content = notification.content
        var step = DemoStep(
            "seal-\(notification.name)", section: section,
            title: "Seal: \(notification.title) · \(notification.conversation.name) → \(notification.transport.label)")
        let body: [UInt8], path: SealPath, sizes: SealSizes, keyID: KeyID
        switch notification.transport {
        case .apns:
            var options = DemoNotifications.apnsOptions
            options.keyBundle = keyBundle
            let request = try Self.perform("sealing \(notification.name)") { () throws(ProviderError) in
                try sealer.seal(content, with: sealingKey, options: options)
            }
            (body, path, sizes, keyID) = (request.body, request.path, request.sizes, request.keyID)
        case .fcm:
            var options = DemoNotifications.fcmOptions
            options.keyBundle = keyBundle
            let message = try Self.perform("sealing \(notification.name)") { () throws(ProviderError) in
                try sealer.seal(content, with: sealingKey, options: options)
            }
            (body, path, sizes, keyID) = (message.body, message.path, message.sizes, message.keyID)
        }
        fileCount += 1
        let file = try workspace.writePayload(body, named: notification.fileName(number: fileCount))
        let written = try workspace.read(file)
        let key = StoredKey(key: sealingKey, item: current.item)

        // What the push service sees, from the file's exact bytes.
        let exposure = DemoExposure.examine(written, transport: notification.transport, plaintext: notification.plaintextStrings)
        let fields = notification.plaintextStrings.map(\.field)
        step.expect("path", notification.expectedPath, Self.pathName(path))
        step.expect("withinLimit", true, sizes.limitedByteCount <= sizes.limit && written.count == sizes.payloadByteCount
            && (notification.transport == .fcm || written.count <= TransportLimit.apnsPayload))
        step.expect("plaintextFound", .array([]), .array(exposure.plaintextFound.map(JSONValue.string)))
        step.expect("envelopeKid", keyID.base64URL, exposure.envelope?.keyID.base64URL)
        switch notification.transport {
        case .apns:
            step.expect("visibleAlert", DemoNotifications.placeholder, Self.alertText(exposure))
            step.expect("threadID", "opaque", Self.threadIDKind(exposure.threadID, key: key.key, conversation: content.conversationID))
        case .fcm:
            step.expect("visibleAlert", nil, exposure.hasNotificationBlock ? "notification block" : Self.alertText(exposure))
            step.expect("threadID", nil, exposure.threadID)
        }
        step.problems += exposure.problems
        step.files = [file]

        let operatorName = notification.transport.operatorName
        step.row("file", file)
        step.row("provider", Self.describe(path, sizes: sizes, epoch: key.item.epoch, keyID: keyID))
        switch notification.transport {
        case .apns:
            step.row("\(operatorName) sees", "alert \"\(Self.alertText(exposure) ?? "(none)")\" · thread-id \(exposure.threadID ?? "(none)") (opaque, from the key)")
            step.row("size", DemoFormat.size(sizes.payloadByteCount, of: sizes.limit) + "  whole JSON body")
        case .fcm:
            step.row("\(operatorName) sees", "no alert, no thread id: a data-only message the app's own service displays")
            step.row("size", DemoFormat.size(sizes.limitedByteCount, of: sizes.limit)
                + "  data keys + values (whole message \(DemoFormat.grouped(sizes.payloadByteCount)) bytes)")
        }
        step.row("header", "version 1 · kid \(keyID) · random salt: opaque values only")
        if let keyBundle {
            step.expect("keyBundleMember", true, Self.index(of: Array("\"pushseal-bundle\":\"\(keyBundle.text)\"".utf8), in: written) != nil)
            step.row("key bundle", "\"pushseal-bundle\": \(keyBundle.bytes.count) bytes for this device (its epoch and key sealed), counted first against the limit")
            step.detail("keyBundleBytes", DemoJSON.integer(keyBundle.bytes.count))
        }
        let found = exposure.plaintextFound
        step.row("plaintext", found.isEmpty
            ? "✓ none in the payload bytes: \(fields.joined(separator: ", ")) (\(exposure.needleCount) strings and fragments searched)"
            : "✗ FOUND in the payload bytes: \(found.joined(separator: ", "))")

        step.detail("transport", .string(notification.transport.rawValue))
        step.detail("conversation", .string(content.conversationID))
        step.detail("messageID", .string(content.messageID))
        step.detail("epoch", DemoJSON.integer(key.item.epoch))
        step.detail("kid", .string(keyID.base64URL))
        if case let .truncated(original) = path { step.detail("originalBodyBytes", DemoJSON.integer(original)) }
        step.detail("sizes", DemoJSON.object([
            ("content", DemoJSON.integer(sizes.contentByteCount)), ("padded", DemoJSON.integer(sizes.paddedByteCount)),
            ("envelope", DemoJSON.integer(sizes.envelopeByteCount)), ("wire", DemoJSON.integer(sizes.wireLength)),
            ("payload", DemoJSON.integer(sizes.payloadByteCount)), ("limited", DemoJSON.integer(sizes.limitedByteCount)),
            ("limit", DemoJSON.integer(sizes.limit)),
        ]))
        step.detail("visible", DemoJSON.object([
            ("alert", notification.transport == .apns
                ? DemoJSON.object([("title", DemoJSON.string(exposure.alertTitle)), ("body", DemoJSON.string(exposure.alertBody))])
                : .null),
            ("threadID", DemoJSON.string(exposure.threadID)),
            ("kid", DemoJSON.string(exposure.envelope?.keyID.base64URL)),
        ]))
        step.detail("plaintextChecked", .array(fields.map(JSONValue.string)))
        steps.append(step)
        return Sealed(notification: notification, file: file, keyID: keyID)
    }

    // MARK: Opening

    /// What an open step expects of the receiver's result.
    struct ExpectedOpen {
        var outcome: ReceivedNotification.Outcome = .decrypted
        var reason: ReasonCode?
        var duplicate = false
        var requiresFetch = false
        var truncated = false
        /// `content`, `truncated content` or `placeholder` (see ``DemoRun/textKind(_:sealed:)``).
        var text: String
        /// The key epoch the device opened it with (decrypted results).
        var epoch: Int64?
        /// `name (id)` of a communication notification's sender.
        var sender: String?
        /// The in-band key bundle's outcome code, when the payload carries one.
        var keyBundle: String?
    }

    /// Opens a payload file on the device through its key store, as the notification extension would.
    private mutating func open(
        _ sealed: Sealed, step name: String, title: String, section: DemoStep.Section = .notifications, file: String? = nil,
        _ expected: ExpectedOpen, setUp: ((inout DemoStep) -> Void)? = nil
    ) throws(CLIError) {
        let device = self.device!
        var step = DemoStep(name, section: section, title: title)
        setUp?(&step)
        let file = file ?? sealed.file
        let payload = try workspace.read(file)
        let result = receiver.open(.json(payload))
        let content = sealed.notification.content

        step.expect("outcome", expected.outcome.rawValue, result.outcome.rawValue)
        step.expect("reason", expected.reason?.rawValue, result.reason?.rawValue)
        step.expect("duplicate", expected.duplicate, result.isDuplicate)
        step.expect("requiresFetch", expected.requiresFetch, result.requiresFetch)
        step.expect("truncated", expected.truncated, result.isTruncated)
        step.expect("text", expected.text, Self.textKind(result, sealed: content))
        step.expect("keyBundle", expected.keyBundle, result.keyBundle?.code)
        var usedEpoch: Int64?
        if let epoch = expected.epoch {
            let items = try Self.perform("listing the device's keys") { () throws(KeyDirectoryError) in try device.items() }
            usedEpoch = items.first { $0.keyID == result.keyID }?.epoch
            step.expect("epoch", epoch, usedEpoch)
        }
        if let sender = expected.sender {
            step.expect("sender", sender, result.sender.map { "\($0.name ?? "?") (\($0.id))" })
        }
        if !step.files.contains(file) { step.files.append(file) }

        var outcome = result.outcome.rawValue
        if let reason = result.reason { outcome += " · reason \(reason.rawValue)" }
        outcome += result.isDuplicate ? " · duplicate: yes (still shown, flagged)" : " · duplicate: no"
        if result.requiresFetch { outcome += " · fetch: the app downloads the message by (cid, mid)" }
        step.row("device", outcome)
        step.row("shows", DemoFormat.shown(result))
        if result.isTruncated, let delivered = result.content?.body, let original = content.body {
            step.row("body", "\(DemoFormat.grouped(delivered.utf8.count)) of \(DemoFormat.grouped(original.utf8.count)) bytes delivered, ends with “…”, trunc: true")
            step.detail("originalBodyBytes", DemoJSON.integer(original.utf8.count))
            step.detail("deliveredBodyBytes", DemoJSON.integer(delivered.utf8.count))
        }
        if let bundle = result.keyBundle { step.row("key bundle", "\(bundle.code) before opening (no unknown_key, no app sync)") }
        if let keyID = result.keyID, result.outcome == .decrypted {
            step.row("key", "kid \(keyID)" + (usedEpoch.map { " (epoch \($0))" } ?? ""))
        }
        if let diagnostic = result.diagnostic, result.outcome == .fallback { step.row("why", diagnostic) }
        step.detail("received", ReceivedNotificationJSON.value(of: result))
        steps.append(step)
    }

    /// The device's receiver: keys from its store, duplicate log in its store, the frozen clock.
    private var receiver: Receiver {
        Receiver(
            keySource: KeyStoreKeySource(
                directory: workspace.path(DemoWorkspace.deviceStore),
                masterKey: .keyFile(path: workspace.path(DemoWorkspace.deviceMasterKey)), clock: clock),
            configuration: ReceiverConfiguration(clock: clock))
    }

    // MARK: Fallbacks

    /// Changes one base64url character in the middle of the wire (inside the ciphertext) and
    /// opens the result: `authentication_failed`, and nothing recorded in the duplicate log.
    private mutating func tamper(_ sealed: Sealed) throws(CLIError) {
        var bytes = try workspace.read(sealed.file)
        let marker = Array("\"pushseal\":\"".utf8)
        guard let start = Self.index(of: marker, in: bytes).map({ $0 + marker.count }),
              let length = bytes[start...].firstIndex(of: UInt8(ascii: "\"")).map({ $0 - start }) else {
            throw .failure("the chat message payload has no \"pushseal\" member to tamper with")
        }
        let position = start + length / 2
        let original = bytes[position]
        bytes[position] = original == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        fileCount += 1
        let file = try workspace.writePayload(
            bytes, named: DemoNotification.fileName(number: fileCount, name: "tampered", transport: sealed.notification.transport))
        let changed = "wire character \(length / 2 + 1) of \(length): '\(Character(Unicode.Scalar(original)))' → '\(Character(Unicode.Scalar(bytes[position])))'"
        try open(sealed, step: "tampered-payload", title: "Tampered payload: one character of the chat message's wire flipped",
                 section: .fallbacks, file: file, .init(outcome: .fallback, reason: .authenticationFailed, text: "placeholder")) { step in
            step.row("tampered", "\(file) (\(changed))")
            step.files = [sealed.file, file]
        }
    }

    /// A forged bundle (sealed with another key while naming the pinned provider key) and an
    /// expired one are refused with their reasons, and nothing is installed.
    private mutating func refuseBundle(forged: Bool) throws(CLIError) {
        let (provider, device) = (self.provider!, self.device!)
        let name = forged ? "forged-bundle" : "expired-bundle"
        var step = DemoStep(name, section: .fallbacks, title: forged
            ? "Forged key bundle: sealed with an attacker's key, naming the pinned provider key"
            : "Expired key bundle: a key whose not-after time has passed")
        let attackerKey = try Self.perform("generating a key") { () throws(KeyDirectoryError) in try provider.rotate(conversation: "conversation:attack") }
        let before = try Self.perform("listing the device's keys") { () throws(KeyDirectoryError) in try device.items().count }
        var bundle: KeyBundle
        if forged {
            let attacker = IdentityKeyPair.generate()
            let pinned = try Self.perform("reading the provider key") { () throws(KeyDirectoryError) in try provider.providerKey() }
            let registration = try Self.perform("reading the device registration") { () throws(KeyDirectoryError) in try device.deviceRegistration() }
            // Sealed with the attacker's own key pair, then its header made to name the pinned
            // provider key (the header is the bundle's associated data; nothing else changes).
            let sealed = try Self.perform("forging a bundle") { () throws(KeyBundleSealingError) in
                try KeyBundle.seal(
                    conversationKey: attackerKey.key, conversation: attackerKey.item.conversation, epoch: attackerKey.item.epoch,
                    since: now, retireBy: nil, expires: now + KeyBundle.defaultLifetime, provider: attacker, device: registration)
            }
            bundle = try Self.perform("forging a bundle") { () throws(KeyBundleError) in
                try KeyBundle(bytes: KeyBundleHeader(providerKeyID: pinned.providerKeyID).encoded() + sealed.bytes.dropFirst(KeyBundleHeader.byteCount))
            }
        } else {
            bundle = try self.bundle(for: attackerKey, lifetime: -3_600)
        }
        let reason: String
        do throws(KeyBundleError) {
            reason = try device.install(bundle).rawValue
        } catch {
            reason = error.reason.rawValue
            step.row("why", error.description)
        }
        let after = try Self.perform("listing the device's keys") { () throws(KeyDirectoryError) in try device.items().count }
        step.expect("reason", forged ? KeyBundleReason.bundleAuthenticationFailed.rawValue : KeyBundleReason.bundleExpired.rawValue, reason)
        step.expect("installedKeys", Int64(before), Int64(after))
        step.row("device", "refused: \(reason); nothing installed (\(after) keys, as before)")
        step.detail("reason", .string(reason))
        steps.append(step)
    }

    /// A member removed by the rotation still holds epoch 1 of its own device (Bob's old tablet) and,
    /// an hour later, seals a notification with it and a fresh `ts` to this device. Its key is its
    /// tablet's K_d, which this device never had: the forgery falls back with `unknown_key` (SPEC
    /// §4.4). Even this device's own epoch-1 key is retired since epoch 2 arrived (`retired_key`).
    private mutating func removedMemberForgery(_ conversation: DemoConversation) throws(CLIError) {
        let (provider, sealer) = (self.provider!, self.sealer!)
        var step = DemoStep(
            "removed-member-forgery", section: .fallbacks,
            title: "A member removed by the rotation forges with the old key, an hour later")
        let items = try Self.perform("listing the provider's keys") { () throws(KeyDirectoryError) in try provider.items(conversation: conversation.id) }
        guard let retired = items.first(where: { $0.epoch == 1 }) else { throw .failure("epoch 1 of \(conversation.id) is missing") }
        let oldKey = try Self.perform("reading key \(retired.keyID)") { () throws(KeyDirectoryError) in try provider.key(for: retired.keyID) }
        let tablet = IdentityKeyPair.generate().deviceKeyID  // the removed member's own device
        let tabletKey = oldKey.key.deviceKey(for: tablet)
        let later = now + 3_600
        let forged = NotificationContent(
            conversationID: conversation.id, messageID: "msg:1099", sentAt: later,
            title: "Alice Martin", body: "New phone! Send me the door code here")
        let request = try Self.perform("sealing the forgery") { () throws(ProviderError) in
            try sealer.seal(forged, with: tabletKey, options: DemoNotifications.apnsOptions)
        }
        fileCount += 1
        let file = try workspace.writePayload(request.body, named: DemoNotification.fileName(number: fileCount, name: "removed-member-forgery", transport: .apns))
        let deviceClock: SecondsClock = { later }
        let laterReceiver = Receiver(
            keySource: KeyStoreKeySource(
                directory: workspace.path(DemoWorkspace.deviceStore),
                masterKey: .keyFile(path: workspace.path(DemoWorkspace.deviceMasterKey)), clock: deviceClock),
            configuration: ReceiverConfiguration(clock: deviceClock))
        let result = laterReceiver.open(.json(try workspace.read(file)))
        step.expect("outcome", ReceivedNotification.Outcome.fallback.rawValue, result.outcome.rawValue)
        step.expect("reason", ReasonCode.unknownKey.rawValue, result.reason?.rawValue)
        step.expect("duplicate", false, result.isDuplicate)
        step.expect("text", "placeholder", Self.textKind(result, sealed: forged))
        // The same forgery under this device's own epoch-1 key (were it leaked): retired.
        let ownKey = try deviceKey(of: oldKey.key)
        let own = try Self.perform("sealing the forgery") { () throws(ProviderError) in
            try sealer.seal(forged, with: ownKey, options: DemoNotifications.apnsOptions)
        }
        let ownResult = laterReceiver.open(.json(own.body))
        step.expect("ownDeviceKeyReason", ReasonCode.retiredKey.rawValue, ownResult.reason?.rawValue)
        step.files = [file]
        step.row("payload", "\(file): the removed member's tablet key of epoch 1 (kid \(tabletKey.id)), ts one hour after the rotation")
        step.row("device", "fallback · reason \(result.reason?.rawValue ?? "none") · a member's key seals to its own devices only")
        step.row("own key", "this device's own epoch-1 key: \(ownResult.reason?.rawValue ?? "none") (retired at epoch 2's since)")
        step.row("shows", DemoFormat.shown(result))
        step.detail("received", ReceivedNotificationJSON.value(of: result))
        step.detail("sentAt", DemoJSON.integer(later))
        step.detail("retireBy", retired.notAfter.map(DemoJSON.integer) ?? .null)
        steps.append(step)
    }

    /// Logout: the device wipes every key and its duplicate log.
    private mutating func logoutWipe() throws(CLIError) {
        let device = self.device!
        var step = DemoStep("logout-wipe", section: .fallbacks, title: "Logout: the device wipes its store and replaces its device key")
        let before = try Self.perform("reading the device registration") { () throws(KeyDirectoryError) in try device.deviceRegistration() }
        let (removed, registration) = try Self.perform("wiping the device store") { () throws(KeyDirectoryError) in try device.wipeDevice() }
        step.expect("deviceKeyReplaced", true, registration != before)
        let remaining = try Self.perform("listing the device's keys") { () throws(KeyDirectoryError) in try device.items().count }
        let deliveries = try Self.perform("counting the duplicate log") { () throws(KeyDirectoryError) in try device.deliveryCount() }
        step.expect("removedKeys", Int64(deviceKeyCount), Int64(removed))
        step.expect("remainingKeys", 0, Int64(remaining))
        step.expect("duplicateLogEntries", 0, Int64(deliveries))
        step.row("device", "removed \(removed) keys and the duplicate log; \(remaining) keys left")
        steps.append(step)
    }

    // MARK: Helpers

    /// Runs a library call, turning its error into a diagnostic that names the action.
    static func perform<T, E: Error>(_ action: String, _ body: () throws(E) -> T) throws(CLIError) -> T {
        do {
            return try body()
        } catch {
            throw .failure("demo stopped while \(action): \(error)")
        }
    }

    static func pathName(_ path: SealPath) -> String {
        switch path {
        case .complete: "complete"
        case .truncated: "truncated"
        case .contentFree: "content-free"
        }
    }

    static func describe(_ path: SealPath, sizes: SealSizes, epoch: Int64, keyID: KeyID) -> String {
        let sealed = "content \(DemoFormat.grouped(sizes.contentByteCount)) bytes, padded to \(DemoFormat.grouped(sizes.paddedByteCount)), epoch \(epoch)"
        switch path {
        case .complete:
            return "complete · \(sealed)"
        case let .truncated(original):
            return "truncated · body of \(DemoFormat.grouped(original)) bytes cut at a character boundary with “…”, trunc: true · \(sealed)"
        case .contentFree:
            return "content-free · only cid, mid and ts sealed, the app fetches the rest · \(sealed)"
        }
    }

    /// The visible alert as `title: body`, or just the body.
    static func alertText(_ exposure: DemoExposure) -> String? {
        guard let body = exposure.alertBody else { return exposure.alertTitle }
        return exposure.alertTitle.map { "\($0): \(body)" } ?? body
    }

    /// `opaque` when the thread id is the key's opaque thread id (and not the conversation id).
    static func threadIDKind(_ threadID: String?, key: ConversationKey, conversation: String) -> String? {
        guard let threadID else { return nil }
        if threadID.utf8.elementsEqual(conversation.utf8) { return "conversation id" }
        return threadID.utf8.elementsEqual(key.opaqueThreadID.utf8) ? "opaque" : "plain"
    }

    /// What the notification shows, classified: `content` (the sealed title and body),
    /// `truncated content` (the sealed title, the body shortened with "…"), `placeholder` (no
    /// title, body "New message"), or `other …` when it is none of these.
    static func textKind(_ result: ReceivedNotification, sealed: NotificationContent) -> String {
        func same(_ text: NotificationText?, _ expected: String?) -> Bool {
            switch (text, expected) {
            case (nil, nil): true
            case let (.plain(value)?, expected?): value.utf8.elementsEqual(expected.utf8)
            default: false
            }
        }
        switch result.textSource {
        case .content:
            guard same(result.title, sealed.title), same(result.subtitle, sealed.subtitle),
                  case let .plain(body) = result.body, let original = sealed.body else { return "other content" }
            if body.utf8.elementsEqual(original.utf8) { return "content" }
            let ellipsis = "…"
            if result.isTruncated, body.utf8.count < original.utf8.count, body.utf8.suffix(ellipsis.utf8.count).elementsEqual(ellipsis.utf8),
               original.utf8.starts(with: body.utf8.dropLast(ellipsis.utf8.count)) {
                return "truncated content"
            }
            return "other content"
        case .payloadPlaceholder, .appFallback:
            return result.title == nil && result.subtitle == nil && same(result.body, DemoNotifications.placeholder)
                ? "placeholder" : "other fallback text"
        }
    }

    static func octal(_ mode: UInt32?) -> String? {
        guard let mode else { return nil }
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    static func index(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}

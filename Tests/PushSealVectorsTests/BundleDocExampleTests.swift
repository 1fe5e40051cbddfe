import Foundation
import PushSealCore
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import PushSealProvider
import PushSealReceiver
import Testing

// Docs/INTEGRATION-IOS.md §2 "Keys arrive as key bundles", verbatim (keep in sync).

/// After login: the device key (once) and the pinned provider key; returns the registration
/// JSON to send to the backend next to the push token.
func enrollDevice(store: DeviceKeyStore, providerPublicKey: [UInt8]) throws -> String {
    let registration: DeviceRegistration
    do {
        registration = try store.createDeviceKey()
    } catch .duplicateItem {
        registration = try store.deviceRegistration()   // enrolled before
    }
    try store.pinProviderKey(providerPublicKey)
    return registration.json
}

/// A bundle from the app's API (out of band). A refused bundle names its reason
/// (`error.reason`: unknown_provider, bundle_expired, epoch_purged, …).
func installFromAPI(store: DeviceKeyStore, bundleText: String) throws -> KeyBundleInstallation {
    try store.install(KeyBundle(text: bundleText))
}

@Suite("Key bundle doc examples")
struct BundleDocExampleTests {
    func makeStore() throws -> DeviceKeyStore {
        let directory = NSTemporaryDirectory() + "pushseal-bundle-doc-" + UUID().uuidString
        return try DeviceKeyStore(directory: directory, masterKey: .keyFile(path: directory + "/master.key", createIfMissing: true), create: true)
    }

    @Test("Docs/PROVIDER.md §6 and INTEGRATION-IOS.md: enroll, seal in band, the device opens the new epoch")
    func providerAndDevice() throws {
        let directory = try makeStore()
        let device = try makeStore()
        let sealer = try NotificationSealer()
        let apnsOptions = APNsOptions()
        let content = NotificationContent(conversationID: "c1", messageID: "m1", sentAt: systemClock(), body: "hi")
        try directory.asDirectory.rotate(conversation: "c1")

        // Docs/PROVIDER.md §6, verbatim from here (keep in sync):
        // Backend, once: the key directory's provider key; its public key goes to the apps at login.
        let providerInfo = try directory.asDirectory.createProviderKey()
        let registrationJSON = try enrollDevice(store: device, providerPublicKey: providerInfo.publicKey)
        // Per device and epoch: seal the device's own key (derived from the conversation's
        // current key, which never leaves the directory) to the device's registration.
        let registration = try DeviceRegistration(json: Array(registrationJSON.utf8))
        let sealed = try KeyBundle.seal(from: directory.asDirectory, conversation: "c1", device: registration, now: systemClock())
        // In band: the notification to this device, sealed under its key, carries its bundle.
        var perDevice = apnsOptions
        perDevice.keyBundle = sealed.bundle
        let request = try sealer.seal(content, with: sealed.deviceKey, options: perDevice)
        // (end of the verbatim part)

        let receiver = Receiver(keySource: KeyStoreKeySource(directory: device.directory, masterKey: .keyFile(path: device.directory + "/master.key")))
        let opened = receiver.open(.json(request.body))
        #expect(opened.outcome == .decrypted)
        #expect(opened.keyBundle == .installed)
        #expect(try installFromAPI(store: device, bundleText: sealed.bundle.text) == .alreadyInstalled)
        #expect(try enrollDevice(store: device, providerPublicKey: providerInfo.publicKey) == registrationJSON)
    }
}

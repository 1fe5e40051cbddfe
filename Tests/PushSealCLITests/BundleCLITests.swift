import Foundation
@_spi(Vectors) import PushSealCore
import PushSealJSON
import Testing

/// `pushseal device`, `store provider-key`, `bundle seal|install` and `inspect --bundle`.
@Suite("pushseal device and bundle")
struct BundleCLITests {
    /// A key directory with a provider key and conversation c1, and a device store that pinned it.
    struct Setup {
        let sandbox: StoreSandbox
        let registration: String
        let providerKey: String

        init() throws {
            sandbox = try StoreSandbox()
            try sandbox.initStore("kd")
            let created = try runPushSeal(["store", "provider-key", "create", "--dir", sandbox.path("kd")]).stdoutJSONObject()
            providerKey = try #require(created["publicKey"]?.stringValue)
            #expect(try sandbox.store("rotate", "kd", ["--conversation", "c1"]).status == 0)
            let initRun = try runPushSeal(["device", "init", "--dir", sandbox.path("dev")])
            try #require(initRun.status == 0, "\(initRun)")
            registration = try sandbox.write(initRun.stdoutBytes, to: "registration.json")
            let pin = try runPushSeal(["device", "pin", "--dir", sandbox.path("dev"), "--provider-key", providerKey])
            try #require(pin.status == 0, "\(pin)")
        }

        func seal(_ extra: [String] = []) throws -> PushSealRun {
            try runPushSeal(["bundle", "seal", "--dir", sandbox.path("kd"), "--conversation", "c1", "--registration", registration] + extra)
        }

        func install(_ text: String, _ extra: [String] = []) throws -> PushSealRun {
            try runPushSeal(["bundle", "install", "--dir", sandbox.path("dev")] + extra, stdin: text)
        }
    }

    @Test("provisioning by bundle: device init, pin, seal, install (idempotent), the key reaches the device store")
    func provisioning() throws {
        let setup = try Setup()
        defer { setup.sandbox.remove() }
        let registration = try JSONParser.parse(Array(setup.sandbox.contents(setup.registration))).objectValue
        #expect(registration?["suite"]?.stringValue == "pushseal-v1-x25519")
        let sealed = try setup.seal()
        #expect(sealed.status == 0, "\(sealed)")
        let installed = try setup.install(sealed.stdout)
        #expect(installed.status == 0, "\(installed)")
        let outcome = try installed.stdoutJSONObject()
        #expect(outcome["outcome"]?.stringValue == "installed")
        #expect(outcome["conversation"]?.stringValue == "c1")
        #expect(try setup.install(sealed.stdout).stdoutJSONObject()["outcome"]?.stringValue == "already_installed")
        // The device holds its own key K_d, never the directory's K: derived from K and its device key id.
        let deviceKey = try setup.sandbox.storeJSON("get", "dev", ["--conversation", "c1"])
        let directoryKey = try setup.sandbox.storeJSON("get", "kd", ["--conversation", "c1"])
        let rootText = try #require(directoryKey["key"]?.stringValue)
        let root = try ConversationKey(rawBytes: Base64URL.decode(rootText))
        let idText = try #require(registration?["deviceKeyId"]?.stringValue)
        let deviceID = try #require(KeyID(base64URL: idText))
        #expect(deviceKey["key"]?.stringValue == root.deviceKey(for: deviceID).withUnsafeBytes { Base64URL.encode($0) })
        #expect(deviceKey["key"] != directoryKey["key"])
        let show = try runPushSeal(["device", "show", "--dir", setup.sandbox.path("dev"), "--json"])
        let shown = try show.stdoutJSONObject()
        #expect(shown["registration"]?.objectValue?["deviceKeyId"] == registration?["deviceKeyId"])
        #expect(shown["pinnedProviderKeys"].flatMap { if case let .array(a) = $0 { a.count } else { nil } } == 1)
    }

    @Test("refusals name their reason: unknown provider, expired, another device, forged, malformed, format 1")
    func refusals() throws {
        let setup = try Setup()
        defer { setup.sandbox.remove() }
        // A second provider key (not pinned), promoted at once, seals: unknown_provider.
        let second = try runPushSeal(["store", "provider-key", "create", "--dir", setup.sandbox.path("kd"), "--promote"]).stdoutJSONObject()
        let unpinned = try setup.seal()
        expectFailure(try setup.install(unpinned.stdout), messagePrefix: "key bundle refused (unknown_provider)", hint: true)
        // The first (pinned) one by id still works.
        let list = try runPushSeal(["store", "provider-key", "list", "--dir", setup.sandbox.path("kd")])
        let listLines = list.stdout.split(separator: "\n").map(String.init)
        #expect(listLines.count == 2)
        #expect(listLines.last?.contains("\"current\":true") == true)
        #expect(listLines.last?.contains(try #require(second["id"]?.stringValue)) == true)
        let firstID = try #require(JSONParser.parse(Array(listLines[0].utf8)).objectValue?["id"]?.stringValue)
        let pinned = try setup.seal(["--provider-key-id", firstID])
        #expect(try setup.install(pinned.stdout).status == 0)
        // An expired bundle: sealed with a 60-second lifetime, installed later.
        let short = try setup.seal(["--provider-key-id", firstID, "--lifetime", "60", "--now", "1000"])
        expectFailure(try setup.install(short.stdout, ["--now", "2000"]), messagePrefix: "key bundle refused (bundle_expired)")
        // A retired epoch can still be delivered: it installs as retired below the newest epoch.
        #expect(try setup.sandbox.store("rotate", "kd", ["--conversation", "c1"]).status == 0)
        let newest = try setup.seal(["--provider-key-id", firstID])
        #expect(try setup.install(newest.stdout).stdoutJSONObject()["outcome"]?.stringValue == "installed")
        let old = try setup.seal(["--epoch", "1", "--provider-key-id", firstID])
        #expect(try setup.install(old.stdout).stdoutJSONObject()["outcome"]?.stringValue == "already_installed")
        // Sealed to another device.
        let other = try runPushSeal(["device", "init", "--dir", setup.sandbox.path("dev2")])
        let otherRegistration = try setup.sandbox.write(other.stdoutBytes, to: "other.json")
        let elsewhere = try runPushSeal(["bundle", "seal", "--dir", setup.sandbox.path("kd"), "--conversation", "c1",
                                         "--registration", otherRegistration, "--provider-key-id", firstID])
        expectFailure(try setup.install(elsewhere.stdout), messagePrefix: "key bundle refused (bundle_authentication_failed)", hint: true)
        expectFailure(try setup.install("AQ="), messagePrefix: "key bundle refused (malformed_bundle)")
        expectFailure(try setup.install("AAAA"), messagePrefix: "key bundle refused (unsupported_bundle_version)")
        expectFailure(try setup.install("AQ" + String(repeating: "A", count: 200)), messagePrefix: "key bundle refused (unsupported_bundle_version)",
                      hint: true)
        // A forged bundle: a bit of the sealed key flipped.
        var bytes = Array(pinned.stdout.utf8.dropLast())
        bytes[bytes.count - 10] = bytes[bytes.count - 10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        expectFailure(try setup.install(String(decoding: bytes, as: UTF8.self)), messagePrefix: "key bundle refused (bundle_authentication_failed)")
    }

    @Test("a conversation id with a control character (SPEC §5.1): the directory refuses it, bundle install refuses it (malformed_bundle)")
    func controlCharacterConversation() throws {
        let setup = try Setup()
        defer { setup.sandbox.remove() }
        let conversation = "c\u{1}1"
        // The directory never holds such a key: store rotate refuses the id (HardeningThirdRoundCLITests covers the
        // message), and the library refuses to seal it (KeyBundleTests), so bundle seal cannot be reached with it.
        #expect(try setup.sandbox.store("rotate", "kd", ["--conversation", conversation]).status == 64)
        // A provider that seals it anyway (the sealing path a correct provider never takes), pinned by the device.
        let registration = try #require(JSONParser.parse(Array(setup.sandbox.contents(setup.registration))).objectValue)
        let publicKeyText = try #require(registration["publicKey"]?.stringValue)
        let devicePublicKey = try Base64URL.decode(publicKeyText)
        let deviceIDText = try #require(registration["deviceKeyId"]?.stringValue)
        let deviceID = try #require(KeyID(base64URL: deviceIDText))
        let provider = try IdentityKeyPair(privateKeyBytes: [UInt8](repeating: 0x42, count: 32))
        let pin = try runPushSeal(["device", "pin", "--dir", setup.sandbox.path("dev"), "--provider-key", Base64URL.encode(provider.publicKey)])
        try #require(pin.status == 0, "\(pin)")
        func bundle(_ conversation: String) throws -> String {
            let key = try ConversationKey(rawBytes: [UInt8](repeating: 7, count: 32)).deviceKey(for: deviceID)
            let plaintext = KeyBundleContents.encode(key: key, keyID: key.id, epoch: 1, since: 1000, retireBy: .max, expires: .max >> 1,
                                                     conversationBytes: Array(conversation.utf8))
            return try KeyBundle.seal(plaintext: plaintext, header: KeyBundleHeader(providerKeyID: provider.providerKeyID), sender: provider,
                                      devicePublicKey: devicePublicKey, ephemeral: nil).bundle.text
        }
        expectFailure(try setup.install(bundle(conversation)), messagePrefix: "key bundle refused (malformed_bundle)")
        // The same bundle with a usable id installs: the refusal is the identifier rule's.
        #expect(try setup.install(bundle("c11")).stdoutJSONObject()["outcome"]?.stringValue == "installed")
    }

    /// Issue 29 item 2: before, deleting the newest provider-key row made `bundle seal` quietly
    /// seal with the older provider key (exit 0); now it fails naming the missing key.
    @Test("bundle seal after the newest provider-key row was deleted: an error, not the older key")
    func deletedNewestProviderKey() throws {
        let setup = try Setup()
        defer { setup.sandbox.remove() }
        let second = try runPushSeal(["store", "provider-key", "create", "--dir", setup.sandbox.path("kd"), "--promote"]).stdoutJSONObject()
        let secondID = try #require(second["id"]?.stringValue)
        let id = try #require(KeyID(base64URL: secondID))
        try setup.sandbox.tamper("kd", "DELETE FROM identities WHERE kind = 'provider' AND id = x'\(id.bytes.map { String(format: "%02x", $0) }.joined())'")
        expectFailure(try setup.seal(), messagePrefix: "the current provider key \(secondID) is missing from the key store", hint: true)
        let list = try runPushSeal(["store", "provider-key", "list", "--dir", setup.sandbox.path("kd")])
        #expect(list.status == 0 && !list.stdout.contains("\"current\":true"), "\(list)")
        #expect(list.stderr.contains("no current provider key"), "\(list)")
    }

    @Test("device init refuses a second key; bundle seal refuses a bad registration; pin a bad key is a usage error")
    func inputErrors() throws {
        let setup = try Setup()
        defer { setup.sandbox.remove() }
        expectFailure(try runPushSeal(["device", "init", "--dir", setup.sandbox.path("dev")]), messagePrefix: "the device store", hint: true)
        let bad = try setup.sandbox.write(Array("{\"suite\":\"x\"}".utf8), to: "bad.json")
        expectFailure(try runPushSeal(["bundle", "seal", "--dir", setup.sandbox.path("kd"), "--conversation", "c1", "--registration", bad]),
                      messagePrefix: "unusable device public key", hint: true)
        let pin = try runPushSeal(["device", "pin", "--dir", setup.sandbox.path("dev"), "--provider-key", "AAAA"])
        #expect(pin.status == 64)
    }

    @Test("inspect --bundle explains a bundle without any key, and a malformed one with its reason")
    func inspect() throws {
        let setup = try Setup()
        defer { setup.sandbox.remove() }
        let sealed = try setup.seal()
        let text = try runPushSeal(["inspect", "--bundle"], stdin: sealed.stdout)
        #expect(text.status == 0)
        #expect(text.stdout.contains("sealed        device key, kid, epoch, since, retire-by, expires, conversation id"))
        #expect(text.stdout.contains("403 bytes (every bundle)"))
        #expect(!text.stdout.contains("c1"))
        let json = try runPushSeal(["inspect", "--bundle", "--json"], stdin: sealed.stdout).stdoutJSONObject()
        #expect(json["valid"] == .bool(true) && json["bundleBytes"]?.integerValue == 403 && json["textLength"]?.integerValue == 538)
        #expect(json["epoch"] == nil && json["deviceKeyId"] == nil && json["kid"] == nil, "nothing per-device or per-conversation in clear")
        let bad = try runPushSeal(["inspect", "--bundle", "--json"], stdin: "AQ")
        #expect(bad.status == 1)
        #expect(try bad.stdoutJSONObject()["reason"]?.stringValue == "unsupported_bundle_version")
    }
}

import Foundation
import PushSealCore
import Testing
import PushSealJSON

/// `pushseal open --store`, and provisioning a device from a provider entirely through the CLI.
@Suite struct OpenStoreTests {
    static let now = "1700000060"

    /// `pushseal open --store root/<store> --now … [more]` with `payload` on standard input.
    private func open(_ sandbox: StoreSandbox, _ store: String, _ payload: [UInt8], _ more: [String] = []) throws -> PushSealRun {
        try runPushSeal(["open", "--store", sandbox.path(store), "--now", Self.now] + more, stdin: payload)
    }

    @Test func providerToDeviceProvisioningRoundTrip() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        // Provider: its key directory with the master key kept outside it.
        let providerKey = sandbox.path("provider-master.key")
        try sandbox.initStore("provider", ["--master-key-file", providerKey])
        let added = try sandbox.storeJSON("add", "provider", ["--master-key-file", providerKey, "--conversation", "team-42", "--label", "team"])
        let epoch = try added.integer("epoch")

        // Export on the provider side, import on the device side (through a 0600 file).
        let export = try sandbox.store("get", "provider", ["--master-key-file", providerKey, "--conversation", "team-42"])
        #expect(export.status == 0, "\(export)")
        let exportFile = try sandbox.write(export.stdoutBytes, to: "transfer.json")
        try sandbox.initStore("device")
        let imported = try sandbox.storeJSON("add", "device", [
            "--conversation", "team-42", "--epoch", String(epoch), "--key-file", exportFile, "--label", "provisioned",
        ])
        #expect(try imported.string("kid") == added.string("kid"))
        #expect(try imported.integer("epoch") == epoch)

        // The provider seals with its key (the one it exported); the device opens by key id.
        let key = try SealedPayloads.key(fromExport: export.stdoutJSONObject())
        let payload = try SealedPayloads.apns(SealedPayloads.message("team-42", body: "Deploy at 5?"), key: key)
        let run = try open(sandbox, "device", payload)
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty, "\(run)")
        let result = try run.stdoutJSONObject()
        #expect(try result.string("outcome") == "decrypted")
        #expect(result["reason"] == .null)
        #expect(try result.bool("duplicate") == false)
        let content = try #require(result["content"]?.objectValue)
        #expect(try content.string("cid") == "team-42")
        #expect(try content.string("body") == "Deploy at 5?")

        // The same notification again is flagged, still decrypted.
        let again = try open(sandbox, "device", payload)
        #expect(again.status == 0, "\(again)")
        #expect(try again.stdoutJSONObject().bool("duplicate"))
        #expect(try again.stdoutJSONObject().string("outcome") == "decrypted")
        // Another message of the conversation is not a duplicate.
        let next = try open(sandbox, "device", try SealedPayloads.apns(SealedPayloads.message("team-42", id: "m2"), key: key))
        #expect(try next.stdoutJSONObject().bool("duplicate") == false)
    }

    @Test func missingMasterKeyFileIsStoreLocked() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("device")
        _ = try sandbox.storeJSON("add", "device", ["--conversation", "c1", "--key", Fixtures.keyBase64URL])
        let payload = try SealedPayloads.apns(SealedPayloads.message("c1"), key: Fixtures.key)
        try FileManager.default.removeItem(atPath: sandbox.masterKey("device"))

        let run = try open(sandbox, "device", payload)
        #expect(run.status == 3, "\(run)")
        let result = try run.stdoutJSONObject()
        #expect(try result.string("outcome") == "fallback")
        #expect(try result.string("reason") == "store_locked")
        #expect(try result.string("detail").contains("master key file \(sandbox.masterKey("device")) does not exist"))
        #expect(!run.stdout.contains("Lunch at noon?"), "no plaintext in a fallback")

        // A wrong master key file is store_locked too; the right one opens it.
        let wrong = try sandbox.write(Array(repeating: 1, count: 32), to: "wrong.key")
        let wrongRun = try open(sandbox, "device", payload, ["--master-key-file", wrong])
        #expect(wrongRun.status == 3)
        #expect(try wrongRun.stdoutJSONObject().string("reason") == "store_locked")
    }

    @Test func aKeyIdTheStoreDoesNotHoldIsUnknownKeyEvenWhileLocked() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("device")
        let payload = try SealedPayloads.apns(SealedPayloads.message("c1"), key: Fixtures.key)
        try FileManager.default.removeItem(atPath: sandbox.masterKey("device"))
        let run = try open(sandbox, "device", payload)
        #expect(run.status == 3, "\(run)")
        #expect(try run.stdoutJSONObject().string("reason") == "unknown_key")
    }

    @Test func unknownKeyAfterTheLogoutWipe() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("device")
        _ = try sandbox.storeJSON("add", "device", ["--conversation", "c1", "--key", Fixtures.keyBase64URL])
        let payload = try SealedPayloads.apns(SealedPayloads.message("c1"), key: Fixtures.key)
        #expect(try open(sandbox, "device", payload).status == 0)

        #expect(try sandbox.storeJSON("remove", "device", ["--all"]).integer("removed") == 1)
        let run = try open(sandbox, "device", payload)
        #expect(run.status == 3, "\(run)")
        let result = try run.stdoutJSONObject()
        #expect(try result.string("reason") == "unknown_key")
        #expect(try result.bool("duplicate") == false)

        // Provisioned again: decrypted, and not a duplicate (the wipe cleared the log too).
        _ = try sandbox.storeJSON("add", "device", ["--conversation", "c1", "--key", Fixtures.keyBase64URL])
        let fresh = try open(sandbox, "device", payload)
        #expect(fresh.status == 0, "\(fresh)")
        #expect(try fresh.stdoutJSONObject().bool("duplicate") == false)
    }

    @Test func aMissingStoreIsStoreLocked() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let payload = try SealedPayloads.apns(SealedPayloads.message("c1"), key: Fixtures.key)
        let run = try open(sandbox, "nowhere", payload)
        #expect(run.status == 3, "\(run)")
        let result = try run.stdoutJSONObject()
        #expect(try result.string("reason") == "store_locked")
        #expect(try result.string("detail").contains("does not exist"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("nowhere")), "open never creates a store")
    }

    @Test func theStoredConversationMustMatchTheContent() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("device")
        _ = try sandbox.storeJSON("add", "device", ["--conversation", "c2", "--key", Fixtures.keyBase64URL])
        let run = try open(sandbox, "device", try SealedPayloads.apns(SealedPayloads.message("c1"), key: Fixtures.key))
        #expect(run.status == 3)
        #expect(try run.stdoutJSONObject().string("reason") == "conversation_mismatch")
    }

    @Test func staleNotificationsAreNotRecordedAndTheWindowFollowsMaxAge() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("device")
        _ = try sandbox.storeJSON("add", "device", ["--conversation", "c1", "--key", Fixtures.keyBase64URL])
        let payload = try SealedPayloads.apns(SealedPayloads.message("c1", sentAt: 1_700_000_000), key: Fixtures.key)
        let stale = try open(sandbox, "device", payload, ["--max-age", "10"])
        #expect(stale.status == 3)
        #expect(try stale.stdoutJSONObject().string("reason") == "stale")
        // A stale open recorded nothing: the first decrypting open is not a duplicate.
        let first = try open(sandbox, "device", payload)
        #expect(try first.stdoutJSONObject().bool("duplicate") == false)
    }

    @Test func aDuplicateLogThatCannotBeWrittenStillDecryptsWithAWarning() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("device")
        _ = try sandbox.storeJSON("add", "device", ["--conversation", "c1", "--key", Fixtures.keyBase64URL])
        // A log that cannot be written: a directory in place of its file (the lookup does not need it).
        let log = sandbox.path("device") + "/pushseal-deliveries"
        try FileManager.default.removeItem(atPath: log)
        try FileManager.default.createDirectory(atPath: log, withIntermediateDirectories: false)
        let payload = try SealedPayloads.apns(SealedPayloads.message("c1"), key: Fixtures.key)
        for _ in 1...2 {
            let run = try open(sandbox, "device", payload)
            #expect(run.status == 0, "\(run)")
            #expect(try run.stdoutJSONObject().string("outcome") == "decrypted")
            #expect(try run.stdoutJSONObject().bool("duplicate") == false)
            #expect(run.stderr.hasPrefix("pushseal: warning: decrypted, but the duplicate log could not be updated"), "\(run)")
        }
    }
}

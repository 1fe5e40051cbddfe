import Foundation
import PushSealCore
import Testing
import PushSealJSON

/// `pushseal store remove` (one key, a conversation, everything) and `pushseal store purge`.
@Suite struct StoreRemovePurgeTests {
    /// c1 epochs 1–3 and c2 epoch 1; returns the kids of c1 in epoch order.
    private func populated(_ sandbox: StoreSandbox) throws -> [String] {
        try sandbox.initStore("keys")
        var kids: [String] = []
        for _ in 1...3 { kids.append(try sandbox.storeJSON("add", "keys", ["--conversation", "c1"]).string("kid")) }
        _ = try sandbox.storeJSON("add", "keys", ["--conversation", "c2"])
        return kids
    }

    private func remaining(_ sandbox: StoreSandbox) throws -> [String] {
        try sandbox.storeJSON("list", "keys", ["--json"]).objects("items").map { "\(try $0.string("conversation"))/\(try $0.integer("epoch"))" }
    }

    @Test func removeOneKeyByKidOrByEpoch() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let kids = try populated(sandbox)
        let byKid = try sandbox.store("remove", "keys", ["--kid", kids[1]])
        #expect(byKid.status == 0, "\(byKid)")
        let object = try byKid.stdoutJSONObject()
        #expect(object.names == ["duplicateLogCleared", "removed"])
        #expect(try object.integer("removed") == 1)
        #expect(try object.bool("duplicateLogCleared") == false)
        #expect(try remaining(sandbox) == ["c1/1", "c1/3", "c2/1"])

        #expect(try sandbox.storeJSON("remove", "keys", ["--conversation", "c1", "--epoch", "3"]).integer("removed") == 1)
        #expect(try remaining(sandbox) == ["c1/1", "c2/1"])
        #expect(try sandbox.storeJSON("remove", "keys", ["--kid", kids[0], "--conversation", "c1"]).integer("removed") == 1)
        #expect(try remaining(sandbox) == ["c2/1"])
    }

    @Test func removingAKeyThatIsNotThereIsAnError() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let kids = try populated(sandbox)
        let unknown = Base64URL.encode([UInt8](repeating: 9, count: 16))
        expectFailure(try sandbox.store("remove", "keys", ["--kid", unknown]), messagePrefix: "no key with id \(unknown) in the store", hint: true)
        expectFailure(try sandbox.store("remove", "keys", ["--conversation", "c1", "--epoch", "9"]),
                      messagePrefix: "conversation \"c1\" has no epoch 9 (it has 1, 2, 3)", hint: true)
        expectFailure(try sandbox.store("remove", "keys", ["--conversation", "c9", "--epoch", "1"]),
                      messagePrefix: "conversation \"c9\" has no epoch 1 (it has no keys)", hint: true)
        expectFailure(try sandbox.store("remove", "keys", ["--kid", kids[0], "--conversation", "c2"]),
                      messagePrefix: "conversation \"c2\" has no key with id \(kids[0])", hint: true)
        expectUsageError(try sandbox.store("remove", "keys", ["--kid", "not-a-kid"]), command: "pushseal store remove",
                         message: "The value 'not-a-kid' is invalid for '--kid <kid>': not a 16-byte base64url key id")
        #expect(try remaining(sandbox) == ["c1/1", "c1/2", "c1/3", "c2/1"])
    }

    @Test func removeAConversation() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        _ = try populated(sandbox)
        let run = try sandbox.store("remove", "keys", ["--conversation", "c1"])
        #expect(run.status == 0, "\(run)")
        #expect(try run.stdoutJSONObject().integer("removed") == 3)
        #expect(try remaining(sandbox) == ["c2/1"])

        let again = try sandbox.store("remove", "keys", ["--conversation", "c1"])
        #expect(again.status == 0, "removing a conversation is idempotent\n\(again)")
        #expect(try again.stdoutJSONObject().integer("removed") == 0)
        #expect(again.stderrLines == ["pushseal: note: conversation \"c1\" had no keys; nothing removed"])
    }

    @Test func removeAllIsTheLogoutWipe() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        _ = try populated(sandbox)
        let run = try sandbox.store("remove", "keys", ["--all"])
        #expect(run.status == 0, "\(run)")
        let object = try run.stdoutJSONObject()
        #expect(try object.integer("removed") == 4)
        #expect(try object.bool("duplicateLogCleared"))
        #expect(try remaining(sandbox).isEmpty)
        let get = try sandbox.store("get", "keys", ["--conversation", "c1"])
        expectFailure(get, messagePrefix: "conversation \"c1\" has no keys in the store", hint: true)
        #expect(get.stdout.isEmpty)
        // The store itself stays usable.
        #expect(try sandbox.storeJSON("add", "keys", ["--conversation", "c1"]).integer("epoch") == 1)
    }

    @Test func removeNeedsExactlyOneSelection() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let kid = Fixtures.key.id.base64URL
        let command = "pushseal store remove"
        expectUsageError(try sandbox.store("remove", "keys"), command: command,
                         message: "Say what to remove: '--kid <kid>', '--conversation <cid>' (with an optional '--epoch <n>'), or '--all'.")
        expectUsageError(try sandbox.store("remove", "keys", ["--all", "--conversation", "c1"]), command: command,
                         message: "'--all' removes everything; drop '--kid', '--conversation' and '--epoch'.")
        expectUsageError(try sandbox.store("remove", "keys", ["--kid", kid, "--epoch", "1"]), command: command,
                         message: "'--kid <kid>' names one key already; drop '--epoch <n>'.")
        expectUsageError(try sandbox.store("remove", "keys", ["--epoch", "1"]), command: command,
                         message: "'--epoch <n>' needs '--conversation <cid>'.")
    }

    @Test func purgeRemovesExpiredKeysOnly() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        _ = try sandbox.storeJSON("rotate", "keys", ["--conversation", "c1", "--now", "1000"])
        _ = try sandbox.storeJSON("rotate", "keys", ["--conversation", "c1", "--now", "2000"])
        _ = try sandbox.storeJSON("add", "keys", ["--conversation", "c2", "--not-after", "5000", "--now", "1000"])

        let early = try sandbox.store("purge", "keys", ["--now", "2100", "--grace", "100"])
        #expect(early.status == 0, "\(early)")
        let object = try early.stdoutJSONObject()
        #expect(object.names == ["deliveriesPruned", "removed"])
        #expect(try object.integer("removed") == 0, "not-after + grace is the last kept second")
        #expect(object["deliveriesPruned"] == .null)

        #expect(try sandbox.storeJSON("purge", "keys", ["--now", "2101", "--grace", "100"]).integer("removed") == 1)
        #expect(try remaining(sandbox) == ["c1/2", "c2/1"])
        #expect(try sandbox.storeJSON("purge", "keys", ["--now", "5001"]).integer("removed") == 0, "default grace: 31 days")
        #expect(try sandbox.storeJSON("purge", "keys", ["--now", String(5001 + 2_678_400)]).integer("removed") == 1)
        #expect(try remaining(sandbox) == ["c1/2"])
    }

    @Test func purgePrunesTheDuplicateLogOnlyWhenAsked() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("device")
        let key = Fixtures.key
        _ = try sandbox.storeJSON("add", "device", ["--conversation", "c1", "--key", Fixtures.keyBase64URL])
        let payload = try SealedPayloads.apns(SealedPayloads.message("c1", sentAt: 1_000_000), key: key)
        let opened = try runPushSeal(["open", "--store", sandbox.path("device"), "--now", "1000000"], stdin: payload)
        #expect(opened.status == 0, "\(opened)")

        // Without the flag the log is kept: a repeat is still flagged.
        let plain = try sandbox.storeJSON("purge", "device", ["--now", "9000000"])
        #expect(plain["deliveriesPruned"] == .null)
        expectUsageError(try sandbox.store("purge", "device", ["--max-age", "60"]), command: "pushseal store purge",
                         message: "'--max-age <seconds>' sets the duplicate log's window; add '--prune-duplicate-log'.")

        // Inside the window (default 31 days + 600 s) nothing is pruned; past it, the entry goes.
        let inside = try sandbox.storeJSON("purge", "device", ["--prune-duplicate-log", "--now", String(1_000_000 + 2_678_400 + 600)])
        #expect(try inside.integer("deliveriesPruned") == 0)
        let past = try sandbox.storeJSON("purge", "device", ["--prune-duplicate-log", "--now", String(1_000_000 + 2_678_400 + 601)])
        #expect(try past.integer("deliveriesPruned") == 1)
        // A custom window.
        let reopened = try runPushSeal(["open", "--store", sandbox.path("device"), "--now", "1000000"], stdin: payload)
        #expect(try reopened.stdoutJSONObject().bool("duplicate") == false, "the entry was pruned")
        let custom = try sandbox.storeJSON("purge", "device", ["--prune-duplicate-log", "--max-age", "10", "--max-skew", "0", "--now", "1000011"])
        #expect(try custom.integer("deliveriesPruned") == 1)
    }
}

/// `pushseal store rotate-master`.
@Suite struct StoreRotateMasterTests {
    @Test func resealsUnderTheNewKeyFile() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        let added = try sandbox.storeJSON("add", "keys", ["--conversation", "c1"])
        let newKey = sandbox.path("new.key")
        let run = try sandbox.store("rotate-master", "keys", ["--new-master-key-file", newKey])
        #expect(run.status == 0, "\(run)")
        let object = try run.stdoutJSONObject()
        #expect(object.names == ["clearedDeliveries", "newMasterKeyFile", "resealedIdentities", "resealedKeys"])
        #expect(try object.integer("resealedKeys") == 1)
        #expect(try object.integer("clearedDeliveries") == 0)
        #expect(run.stderr.contains("pushseal: note: the store is now sealed under \(newKey)"), "\(run)")
        // The old key file no longer opens it; the new one does.
        #expect(try sandbox.store("list", "keys", ["--json"]).status == 1)
        let listed = try sandbox.storeJSON("list", "keys", ["--json", "--master-key-file", newKey]).objects("items")
        #expect(try listed.map { try $0.string("kid") } == [try added.string("kid")])
    }

    @Test func refusesTheCurrentKeyFile() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        let current = sandbox.masterKey("keys")
        let run = try sandbox.store("rotate-master", "keys", ["--new-master-key-file", current])
        #expect(run.status != 0)
        #expect(run.stderr.contains("it is the store's current master key file"), "\(run)")
    }
}

import Foundation
import PushSealCore
import Testing
import PushSealJSON

/// `pushseal store list` (metadata only) and `pushseal store rotate`.
@Suite struct StoreListRotateTests {
    /// A store with c1 rotated twice (epoch 1 retired at 2000) and c2 added once.
    private func populated(_ sandbox: StoreSandbox) throws -> (c1e1: String, c1e2: String, c2e1: String) {
        try sandbox.initStore("keys")
        let first = try sandbox.storeJSON("rotate", "keys", ["--conversation", "c1", "--now", "1000", "--label", "first"])
        let second = try sandbox.storeJSON("rotate", "keys", ["--conversation", "c1", "--now", "2000"])
        let other = try sandbox.storeJSON("add", "keys", ["--conversation", "c2", "--now", "3000"])
        return (try first.string("kid"), try second.string("kid"), try other.string("kid"))
    }

    @Test func jsonListsMetadataWithStatusAndNeverAKey() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let kids = try populated(sandbox)
        let run = try sandbox.store("list", "keys", ["--json", "--now", "2000"])
        #expect(run.status == 0, "\(run)")
        let object = try run.stdoutJSONObject()
        #expect(object.names == ["items", "now"])
        #expect(try object.integer("now") == 2000)
        let items = try object.objects("items")
        #expect(items.map(\.names) == Array(repeating: ["conversation", "createdAt", "current", "epoch", "kid", "label", "live", "notAfter"], count: 3))
        #expect(try items.map { try $0.string("kid") } == [kids.c1e1, kids.c1e2, kids.c2e1])
        #expect(try items.map { try $0.string("conversation") } == ["c1", "c1", "c2"])
        #expect(try items.map { try $0.integer("epoch") } == [1, 2, 1])
        #expect(try items.map { try $0.integer("createdAt") } == [1000, 2000, 3000])
        #expect(items.map { $0["notAfter"] } == [.number("2000"), .null, .null])
        #expect(items.map { $0["label"] } == [.string("first"), .null, .null])
        #expect(try items.map { try $0.bool("live") } == [true, true, true])
        #expect(try items.map { try $0.bool("current") } == [false, true, true])

        let later = try sandbox.storeJSON("list", "keys", ["--json", "--now", "2001"]).objects("items")
        #expect(try later.map { try $0.bool("live") } == [false, true, true])

        // No key material anywhere.
        for kid in [kids.c1e1, kids.c1e2, kids.c2e1] {
            let key = try sandbox.storeJSON("get", "keys", ["--kid", kid]).string("key")
            #expect(!run.stdout.contains(key))
        }
    }

    /// `store list` marks current exactly what `store get` (and `seal`) would use: the newest
    /// epoch while live, never an older live one (before: the highest live epoch, so an older
    /// epoch showed `current` once the newest expired or its row was deleted, while get refused).
    /// Issue 29 item 1.
    @Test func currentIsWhatGetUsesNeverAnOlderLiveEpoch() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        _ = try sandbox.storeJSON("add", "keys", ["--conversation", "a", "--now", "0"])
        _ = try sandbox.storeJSON("add", "keys", ["--conversation", "a", "--not-after", "200", "--now", "0"])
        _ = try sandbox.storeJSON("add", "keys", ["--conversation", "caf\u{E9}", "--now", "0"])
        _ = try sandbox.storeJSON("add", "keys", ["--conversation", "cafe\u{301}", "--now", "0"])
        func statuses(_ now: Int64) throws -> [Bool] {
            try sandbox.storeJSON("list", "keys", ["--json", "--now", String(now)]).objects("items").map { try $0.bool("current") }
        }
        #expect(try statuses(100) == [false, true, true, true], "distinct conversations by bytes")
        #expect(try statuses(201) == [false, false, true, true], "epoch 2 expired: no current key, not epoch 1")
        expectFailure(try sandbox.store("get", "keys", ["--conversation", "a", "--now", "201"]),
                      messagePrefix: "conversation \"a\" has no current key: its newest epoch is past its not-after time", hint: true)

        // The newest row deleted behind the store's back: get refuses, and list marks nothing current.
        try sandbox.tamper("keys", "DELETE FROM keys WHERE conversation = 'a' AND epoch = 2")
        let run = try sandbox.store("list", "keys", ["--json", "--now", "100"])
        #expect(run.status == 0, "\(run)")
        #expect(try run.stdoutJSONObject().objects("items").map { try $0.bool("current") } == [false, true, true])
        #expect(run.stderr.contains("conversation \"a\" has no current key"), "\(run)")
        #expect(try sandbox.store("get", "keys", ["--conversation", "a", "--now", "100"]).status == 1)
    }

    /// Issue 24 item 5 through the CLI: conversation c1's rows and epoch record saved before a
    /// rotation and put back after it. Before: `store get` exported epoch 1 and `seal --store`
    /// sealed under it (exit 0). Now both fail with the rollback named, and nothing is sealed.
    @Test func aConversationRolledBackInTheStoreIsRefusedBySealAndGet() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        _ = try sandbox.storeJSON("rotate", "keys", ["--conversation", "c1", "--now", "1000"])
        try sandbox.tamper("keys", "CREATE TABLE saved_keys AS SELECT * FROM keys; CREATE TABLE saved_epochs AS SELECT * FROM epochs")
        _ = try sandbox.storeJSON("rotate", "keys", ["--conversation", "c1", "--now", "2000"])
        try sandbox.tamper("keys", """
            DELETE FROM keys; DELETE FROM epochs; INSERT INTO keys SELECT * FROM saved_keys; INSERT INTO epochs SELECT * FROM saved_epochs;
            DROP TABLE saved_keys; DROP TABLE saved_epochs
            """)
        let message = "conversation \"c1\" was rolled back: its newest epoch is 1, but epoch 2 was already used here"
        expectFailure(try sandbox.store("get", "keys", ["--conversation", "c1", "--now", "2000"]), messagePrefix: message, hint: true)
        let content = #"{"cid":"c1","mid":"m1","ts":2000,"body":"hello"}"#
        let sealed = try runPushSeal(["seal", "--store", sandbox.path("keys")], stdin: Array(content.utf8))
        expectFailure(sealed, messagePrefix: "", hint: false)
        #expect(sealed.stdout.isEmpty, "nothing sealed: \(sealed)")
        #expect(sealed.stderr.contains("rolled back"), "\(sealed)")
        #expect(sealed.stderr.contains("pushseal: hint: the conversation's rows and epoch record were put back from an older copy"), "\(sealed)")
    }

    @Test func tableForPeople() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let kids = try populated(sandbox)
        let run = try sandbox.store("list", "keys", ["--now", "2101"])
        #expect(run.status == 0, "\(run)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("CONVERSATION  EPOCH  KID"))
        #expect(lines[0].hasSuffix("STATUS   CREATED               NOT AFTER             LABEL"))
        #expect(lines[1] == "c1            1      \(kids.c1e1)  expired  1970-01-01T00:16:40Z  1970-01-01T00:33:20Z  first")
        #expect(lines[2] == "c1            2      \(kids.c1e2)  current  1970-01-01T00:33:20Z  -                     -")
        #expect(lines[3] == "c2            1      \(kids.c2e1)  current  1970-01-01T00:50:00Z  -                     -")
    }

    @Test func tableQuotesConversationIdsThatWouldBreakColumns() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        _ = try sandbox.storeJSON("add", "keys", ["--conversation", "team chat\u{85}2", "--label", "two words", "--now", "1700000000"])
        let run = try sandbox.store("list", "keys")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(run)")
        #expect(lines[1].hasPrefix(#""team chat\u00852"  1"#), "\(run)")
        #expect(lines[1].contains("2023-11-14T22:13:20Z"), "\(run)")
        #expect(lines[1].hasSuffix("  two words"), "\(run)")
    }

    @Test func filterByConversationAndEmptyResults() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let kids = try populated(sandbox)
        let only = try sandbox.storeJSON("list", "keys", ["--json", "--conversation", "c2"]).objects("items")
        #expect(try only.map { try $0.string("kid") } == [kids.c2e1])

        let none = try sandbox.store("list", "keys", ["--conversation", "c3"])
        #expect(none.status == 0)
        #expect(none.stdout.isEmpty)
        #expect(none.stderrLines == ["pushseal: note: conversation \"c3\" has no keys in the store"])
        #expect(try sandbox.storeJSON("list", "keys", ["--json", "--conversation", "c3"]).objects("items").isEmpty)

        try sandbox.initStore("empty")
        let empty = try sandbox.store("list", "empty")
        #expect(empty.status == 0)
        #expect(empty.stderrLines == ["pushseal: note: the store holds no keys"])
    }

    @Test func rotateStartsTheNextEpochAndRetiresThePreviousAfterTheGracePeriod() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        let run = try sandbox.store("rotate", "keys", ["--conversation", "c1", "--now", "1000"])
        #expect(run.status == 0, "\(run)")
        let first = try run.stdoutJSONObject()
        #expect(first.names == ["conversation", "epoch", "kid"])
        #expect(try first.integer("epoch") == 1)

        let second = try sandbox.storeJSON("rotate", "keys", ["--conversation", "c1", "--now", "5000"])
        #expect(try second.integer("epoch") == 2)
        let items = try sandbox.storeJSON("list", "keys", ["--json", "--now", "5000"]).objects("items")
        #expect(items.map { $0["notAfter"] } == [.number("5000"), .null], "retired at the rotation")

        // The exported current key is the new one.
        let current = try sandbox.storeJSON("get", "keys", ["--conversation", "c1", "--now", "5000"])
        #expect(try current.string("kid") == second.string("kid"))
        #expect(!(try sandbox.store("rotate", "keys", ["--conversation", "c1"]).stdout.contains("\"key\"")))
    }

    @Test func rotateToAGivenKeyMirrorsAProviderRotation() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("device")
        _ = try sandbox.storeJSON("add", "device", ["--conversation", "c1", "--now", "1000"])
        let keyFile = try sandbox.write(Array(Fixtures.keyBase64URL.utf8), to: "new.key")
        let rotated = try sandbox.store("rotate", "device", ["--conversation", "c1", "--key-file", keyFile, "--now", "2000"])
        #expect(rotated.status == 0, "\(rotated)")
        #expect(try rotated.stdoutJSONObject().string("kid") == Fixtures.key.id.base64URL)
        #expect(try rotated.stdoutJSONObject().integer("epoch") == 2)
        let items = try sandbox.storeJSON("list", "device", ["--json", "--now", "2000"]).objects("items")
        #expect(items.map { $0["notAfter"] } == [.number("2000"), .null])

        let again = try sandbox.store("rotate", "device", ["--conversation", "c1", "--key", Fixtures.keyBase64URL, "--now", "3000"])
        expectFailure(again, messagePrefix: "the store already holds this key (kid \(Fixtures.key.id)); nothing changed", hint: true)
        #expect(try sandbox.storeJSON("list", "device", ["--json"]).objects("items").map { $0["notAfter"] } == [.number("2000"), .null])
    }

    @Test func rotateChecksItsArguments() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        expectUsageError(try sandbox.store("purge", "keys", ["--grace", "-1"]), command: "pushseal store purge",
                         message: "The value '-1' is invalid for '--grace <seconds>': must be between 0 and 2147483647")
        expectUsageError(try sandbox.store("rotate", "keys", ["--conversation", "c1", "--key", "AAAA", "--key-file", "f"]),
                         command: "pushseal store rotate", message: "Give either '--key <key>' or '--key-file <file>', not both.")
    }
}

/// The removed-member forgery through the CLI: a device mirrors the rotation with `store rotate
/// --key`, and `open --store` refuses what the old key seals after it (SPEC §10.2 step 11).
@Suite struct RetiredKeyCLITests {
    @Test func aFreshNotificationUnderARetiredKeyFallsBackAndAnInFlightOneOpens() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("device")
        let old = ConversationKey.generate()
        let oldText = old.withUnsafeBytes { Base64URL.encode(Array($0)) }
        _ = try sandbox.storeJSON("add", "device", ["--conversation", "c1", "--key", oldText, "--now", "1000"])
        let rotation: Int64 = 1_700_000_000
        _ = try sandbox.storeJSON("rotate", "device", ["--conversation", "c1", "--key", Fixtures.keyBase64URL, "--now", String(rotation)])

        func open(_ content: NotificationContent) throws -> JSONObject {
            let run = try runPushSeal(["open", "--store", sandbox.path("device"), "--now", String(rotation + 3_600)],
                                      stdin: try SealedPayloads.apns(content, key: old))
            return try run.stdoutJSONObject()
        }
        let forged = try open(SealedPayloads.message("c1", id: "forged", sentAt: rotation + 3_600, body: "Send the code"))
        #expect(forged["outcome"] == .string("fallback"))
        #expect(forged["reason"] == .string("retired_key"))
        let inFlight = try open(SealedPayloads.message("c1", id: "in-flight", sentAt: rotation - 60))
        #expect(inFlight["outcome"] == .string("decrypted"))
        // The skew allowance (600 s by default) is the boundary.
        #expect(try open(SealedPayloads.message("c1", id: "edge", sentAt: rotation + 600))["outcome"] == .string("decrypted"))
        #expect(try open(SealedPayloads.message("c1", id: "past", sentAt: rotation + 601))["reason"] == .string("retired_key"))
    }

    /// Issue 24 item 4: a key added with a lifetime (`store add --not-after now+90d`) is retired by
    /// the rotation too, on the provider's directory and on the device that mirrors it; 30 days
    /// later a notification sealed with epoch 1 (the removed member's key) is `retired_key`.
    /// Before the fix, epoch 1 stayed live until its lifetime ended and the forgery decrypted.
    @Test func aKeyWithALifetimeIsRetiredByTheRotationToo() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        try sandbox.initStore("device")
        let start: Int64 = 1_700_000_000
        let lifetime = String(start + 90 * 86_400)
        let added = try sandbox.storeJSON("add", "keys", ["--conversation", "c1", "--not-after", lifetime, "--now", String(start)])
        let old = try SealedPayloads.key(fromExport: try sandbox.storeJSON("get", "keys", ["--kid", try added.string("kid")]))
        let oldText = old.withUnsafeBytes { Base64URL.encode(Array($0)) }
        _ = try sandbox.storeJSON("add", "device", ["--conversation", "c1", "--key", oldText, "--not-after", lifetime, "--now", String(start)])

        let rotation = start + 86_400
        let rotated = try sandbox.storeJSON("rotate", "keys", ["--conversation", "c1", "--now", String(rotation)])
        let newKey = try SealedPayloads.key(fromExport: try sandbox.storeJSON("get", "keys", ["--kid", try rotated.string("kid")]))
        _ = try sandbox.storeJSON(
            "rotate", "device", ["--conversation", "c1", "--key", newKey.withUnsafeBytes { Base64URL.encode(Array($0)) }, "--now", String(rotation)])
        for store in ["keys", "device"] {
            let items = try sandbox.storeJSON("list", store, ["--json", "--now", String(rotation + 30 * 86_400)]).objects("items")
            #expect(items.map { $0["notAfter"] } == [.number(String(rotation)), .null], "\(store): epoch 1 retired at the rotation")
            #expect(try items.map { try $0.bool("live") } == [false, true], "\(store)")
        }

        let later = rotation + 30 * 86_400
        let forged = try runPushSeal(
            ["open", "--store", sandbox.path("device"), "--now", String(later)],
            stdin: try SealedPayloads.apns(SealedPayloads.message("c1", id: "forged", sentAt: later, body: "Send the code"), key: old))
        #expect(try forged.stdoutJSONObject()["outcome"] == .string("fallback"), "\(forged)")
        #expect(try forged.stdoutJSONObject()["reason"] == .string("retired_key"), "\(forged)")
        // A key whose lifetime already ended before the rotation keeps its earlier not-after time.
        _ = try sandbox.storeJSON("add", "keys", ["--conversation", "c2", "--not-after", String(start + 10), "--now", String(start)])
        _ = try sandbox.storeJSON("rotate", "keys", ["--conversation", "c2", "--now", String(rotation)])
        let c2 = try sandbox.storeJSON("list", "keys", ["--json", "--conversation", "c2"]).objects("items")
        #expect(c2.map { $0["notAfter"] } == [.number(String(start + 10)), .null], "min(not-after, now), never later")
    }
}

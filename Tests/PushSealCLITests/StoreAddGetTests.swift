import Foundation
@_spi(Vectors) import PushSealCore
import Testing
import PushSealJSON

/// `pushseal store add` and `pushseal store get` (the explicit export).
@Suite struct StoreAddGetTests {
    @Test func addGeneratesKeysAtTheNextEpochAndNeverPrintsThem() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        let first = try sandbox.store("add", "keys", ["--conversation", "c1"])
        #expect(first.status == 0, "\(first)")
        #expect(first.stderr.isEmpty, "\(first)")
        let object = try first.stdoutJSONObject()
        #expect(object.names == ["conversation", "epoch", "kid"])
        #expect(try object.string("conversation") == "c1")
        #expect(try object.integer("epoch") == 1)
        let kid = try object.string("kid")
        #expect(KeyID(base64URL: kid) != nil)

        let second = try sandbox.storeJSON("add", "keys", ["--conversation", "c1"])
        #expect(try second.integer("epoch") == 2)
        #expect(try second.string("kid") != kid)
        #expect(try sandbox.storeJSON("add", "keys", ["--conversation", "c2"]).integer("epoch") == 1)

        // The exported key is the one whose id add printed.
        let exported = try sandbox.storeJSON("get", "keys", ["--kid", kid])
        #expect(try SealedPayloads.key(fromExport: exported).id.base64URL == kid)
        #expect(!first.stdout.contains(try exported.string("key")))
    }

    @Test func addImportsAKeyWithEpochLabelAndTimes() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        let run = try sandbox.store("add", "keys", [
            "--conversation", "c1", "--key", Fixtures.keyBase64URL, "--epoch", "7", "--label", "from provider",
            "--not-after", "1800000000", "--now", "1700000000",
        ])
        #expect(run.status == 0, "\(run)")
        #expect(!run.stdout.contains(Fixtures.keyBase64URL) && !run.stderr.contains(Fixtures.keyBase64URL))
        let object = try run.stdoutJSONObject()
        #expect(try object.integer("epoch") == 7)
        #expect(try object.string("kid") == Fixtures.key.id.base64URL)

        let item = try #require(try sandbox.storeJSON("list", "keys", ["--json", "--now", "1700000001"]).objects("items").first)
        #expect(try item.string("label") == "from provider")
        #expect(try item.integer("createdAt") == 1_700_000_000)
        #expect(try item.integer("notAfter") == 1_800_000_000)
        // The next automatic epoch follows the highest one.
        #expect(try sandbox.storeJSON("add", "keys", ["--conversation", "c1"]).integer("epoch") == 8)
        let exported = try sandbox.storeJSON("get", "keys", ["--conversation", "c1", "--epoch", "7"])
        #expect(try exported.string("key") == Fixtures.keyBase64URL)
    }

    @Test func addReadsKeyFilesInEveryFormTheToolPrints() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        let keygen = try runPushSeal(["keygen"])
        let keygenFile = try sandbox.write(keygen.stdoutBytes, to: "keygen.json")
        let fromKeygen = try sandbox.storeJSON("add", "keys", ["--conversation", "c1", "--key-file", keygenFile])
        #expect(try fromKeygen.string("kid") == keygen.stdoutJSONObject().string("kid"))

        let exportFile = try sandbox.write(try sandbox.store("get", "keys", ["--conversation", "c1"]).stdoutBytes, to: "export.json")
        try sandbox.initStore("device")
        let imported = try sandbox.storeJSON("add", "device", ["--conversation", "c1", "--key-file", exportFile])
        #expect(try imported.string("kid") == fromKeygen.string("kid"))

        let bareFile = try sandbox.write(Array((Fixtures.keyBase64URL + "\n").utf8), to: "bare.key")
        #expect(try sandbox.storeJSON("add", "keys", ["--conversation", "c2", "--key-file", bareFile]).string("kid") == Fixtures.key.id.base64URL)
    }

    @Test func addRefusesDuplicatesWithTheReason() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        _ = try sandbox.storeJSON("add", "keys", ["--conversation", "c1", "--key", Fixtures.keyBase64URL])

        let sameKey = try sandbox.store("add", "keys", ["--conversation", "c2", "--key", Fixtures.keyBase64URL])
        expectFailure(sameKey, messagePrefix: "the store already holds this key (kid \(Fixtures.key.id)) as epoch 1 of conversation \"c1\"", hint: true)
        #expect(!sameKey.stderr.contains(Fixtures.keyBase64URL))

        let sameEpoch = try sandbox.store("add", "keys", ["--conversation", "c1", "--epoch", "1"])
        expectFailure(sameEpoch, messagePrefix: "conversation \"c1\" already has epoch 1", hint: true)
        #expect(sameEpoch.stderr.contains("omit it to use the next one (2)"), "\(sameEpoch)")
        #expect(try sandbox.storeJSON("list", "keys", ["--json"]).objects("items").count == 1)
    }

    @Test func addChecksItsArgumentsBeforeTouchingTheStore() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let short = Base64URL.encode([UInt8](repeating: 7, count: 31))
        let run = try sandbox.store("add", "missing", ["--conversation", "c1", "--key", short])
        expectUsageError(run, command: "pushseal store add",
                         message: "The value given for '--key <key>' is invalid: decodes to 31 bytes; a conversation key is exactly 32")
        #expect(!run.stderr.contains(short))
        let long = String(repeating: "x", count: 257)
        expectUsageError(try sandbox.store("add", "missing", ["--conversation", long]), command: "pushseal store add",
                         message: "The value '\(long)' is invalid for '--conversation <cid>': a conversation id is 1 to 256 UTF-8 bytes, not 257")
        expectUsageError(try sandbox.store("add", "missing", ["--conversation", "c", "--epoch", "0"]), command: "pushseal store add",
                         message: "The value '0' is invalid for '--epoch <n>': must be between 1 and 2147483647")
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("missing")))
    }

    @Test func addWarnsAboutAKeyThatIsAlreadyExpired() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        let run = try sandbox.store("add", "keys", ["--conversation", "c1", "--not-after", "100", "--now", "200"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.hasPrefix("pushseal: warning: the key is already past its --not-after time"), "\(run)")
    }

    @Test func getExportsTheCurrentKeyAGivenEpochOrAKid() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        let first = try sandbox.storeJSON("rotate", "keys", ["--conversation", "c1", "--now", "1000"])
        let second = try sandbox.storeJSON("rotate", "keys", ["--conversation", "c1", "--now", "2000"])

        let current = try sandbox.store("get", "keys", ["--conversation", "c1", "--now", "2050"])
        #expect(current.status == 0, "\(current)")
        #expect(current.stderr.isEmpty)
        let object = try current.stdoutJSONObject()
        #expect(object.names == ["conversation", "epoch", "key", "kid"])
        #expect(try object.integer("epoch") == 2)
        #expect(try object.string("kid") == second.string("kid"))
        #expect(try SealedPayloads.key(fromExport: object).id.base64URL == second.string("kid"))

        let byEpoch = try sandbox.storeJSON("get", "keys", ["--conversation", "c1", "--epoch", "1"])
        #expect(try byEpoch.string("kid") == first.string("kid"))
        let byKid = try sandbox.storeJSON("get", "keys", ["--kid", try first.string("kid")])
        #expect(try byKid.string("key") == byEpoch.string("key"))
        #expect(try byKid.string("conversation") == "c1")
        #expect(try byKid.integer("epoch") == 1)
        // --kid with its own conversation is fine.
        #expect(try sandbox.store("get", "keys", ["--kid", try first.string("kid"), "--conversation", "c1"]).status == 0)
    }

    @Test func getErrors() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        let item = try sandbox.storeJSON("add", "keys", ["--conversation", "c1", "--not-after", "500", "--now", "100"])
        let kid = try item.string("kid")

        let unknown = Base64URL.encode([UInt8](repeating: 0, count: 16))
        expectFailure(try sandbox.store("get", "keys", ["--kid", unknown]), messagePrefix: "no key with id \(unknown) in the store", hint: true)
        expectUsageError(try sandbox.store("get", "keys", ["--kid", "AAAA"]), command: "pushseal store get",
                         message: "The value 'AAAA' is invalid for '--kid <kid>': not a 16-byte base64url key id")
        expectUsageError(try sandbox.store("get", "keys", ["--kid", unknown + "="]), command: "pushseal store get",
                         message: "The value '\(unknown)=' is invalid for '--kid <kid>': not a 16-byte base64url key id")

        let none = try sandbox.store("get", "keys", ["--conversation", "c9"])
        expectFailure(none, messagePrefix: "conversation \"c9\" has no keys in the store", hint: true)
        #expect(none.stderr.contains("pushseal: hint: add one with: pushseal store add --dir \(sandbox.path("keys")) --conversation c9"), "\(none)")

        let expired = try sandbox.store("get", "keys", ["--conversation", "c1", "--now", "501"])
        expectFailure(expired, messagePrefix: "conversation \"c1\" has no current key: its newest epoch is past its not-after time or was removed", hint: true)
        #expect(try sandbox.store("get", "keys", ["--conversation", "c1", "--now", "500"]).status == 0, "not-after is inclusive")

        expectFailure(try sandbox.store("get", "keys", ["--conversation", "c1", "--epoch", "4"]),
                      messagePrefix: "conversation \"c1\" has no epoch 4 (it has 1)", hint: true)
        expectFailure(try sandbox.store("get", "keys", ["--kid", kid, "--conversation", "c2"]),
                      messagePrefix: "key \(kid) belongs to conversation \"c1\", not \"c2\"", hint: true)
        for run in [try sandbox.store("get", "keys", ["--kid", unknown]), try sandbox.store("get", "keys", ["--conversation", "c9"])] {
            #expect(run.stdout.isEmpty)
        }
    }
}

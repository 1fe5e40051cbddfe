import Foundation
@testable import PushSealCommands
import PushSealCore
import PushSealJSON
import PushSealKeyStore
import PushSealTestSupport
import Testing
import PushSealPlatform

/// The defects of issue 29's hostile trial, through the command line (THREAT-MODEL.md §7.21).
@Suite("Hostile trial, third round (CLI)")
struct HardeningThirdRoundCLITests {
    // MARK: item 5. device pin

    @Test("device pin trims surrounding whitespace like --key, refuses small-order points and the device's own key")
    func devicePin() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("kd")
        let provider = try runPushSeal(["store", "provider-key", "create", "--dir", sandbox.path("kd")]).stdoutJSONObject()
        let providerKey = try #require(provider["publicKey"]?.stringValue)
        let initRun = try runPushSeal(["device", "init", "--dir", sandbox.path("dev")])
        let own = try #require(try initRun.stdoutJSONObject()["publicKey"]?.stringValue)
        func pin(_ key: String) throws -> PushSealRun {
            try runPushSeal(["device", "pin", "--dir", sandbox.path("dev"), "--provider-key", key])
        }

        let padded = try pin(" \t\(providerKey)\n")
        #expect(padded.status == 0, "\(padded)")
        #expect(try padded.stdoutJSONObject()["providerKeyId"]?.stringValue == provider["id"]?.stringValue)

        for point in ["AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "4Ot6fDtBuK4WVuP68Z_EatoJjeucMrH9hmIFFl9JuAA"] {
            let run = try pin(point)
            expectFailure(run, messagePrefix: "cannot pin this provider key: the provider public key is a point of small order", hint: true)
            #expect(run.stdout.isEmpty)
        }
        expectFailure(try pin(own), messagePrefix: "cannot pin this provider key: the provider public key is this store's own device public key", hint: true)

        let shown = try runPushSeal(["device", "show", "--dir", sandbox.path("dev"), "--json"]).stdoutJSONObject()
        guard case let .array(pinned)? = shown["pinnedProviderKeys"] else {
            Issue.record("no pinnedProviderKeys array: \(shown)")
            return
        }
        #expect(pinned.map { $0.objectValue?["publicKey"]?.stringValue } == [providerKey])
    }

    // MARK: item 4. Identifiers: store add / rotate refuse what content cannot carry; store list quotes

    @Test("store add and store rotate refuse a conversation id with LF, ESC, CR, TAB or another C0 control; nothing is stored",
          arguments: ["a\nb", "a\u{1B}[31mb", "a\rb", "a\tb", "\u{01}", "x\u{1F}"])
    func newKeysNeedAContentIdentifier(_ cid: String) throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("s")
        for command in ["add", "rotate"] {
            let run = try sandbox.store(command, "s", ["--conversation", cid])
            expectUsageError(run, command: "pushseal store \(command)", message:
                "The value \(JSONText.quoted(cid)) is invalid for '--conversation <cid>': a conversation id is a content cid, "
                    + "which must not contain a control character U+0000–U+001F (SPEC §5.1): the receiver refuses any other, so the key could never be used")
            // The value is never echoed raw: every line of the message stays one line.
            #expect(!run.stderr.contains(cid), "\(run)")
        }
        let list = try sandbox.store("list", "s", ["--json"])
        #expect(list.status == 0)
        #expect(try list.stdoutJSONObject()["items"] == .array([]))
    }

    @Test("store list quotes and escapes C1 controls, bidirectional overrides, separators and odd spaces; the JSON keeps them exact")
    func listQuotesInvisibleCharacters() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("s")
        let cases: [(cid: String, shown: String)] = [
            ("x\u{85}y", #""x\u0085y""#),
            ("evil\u{202E}txt.exe", #""evil\u202etxt.exe""#),
            ("a\u{7F}", #""a\u007f""#),
            ("line\u{2028}sep", #""line\u2028sep""#),
            ("no\u{A0}break", #""no\u00a0break""#),
            ("zero\u{200B}width", #""zero\u200bwidth""#),
            ("tag\u{E0041}", #""tag\udb40\udc41""#),
            ("caf\u{E9}", "caf\u{E9}"),
        ]
        for (cid, _) in cases {
            let added = try sandbox.store("add", "s", ["--conversation", cid, "--label", "l\u{202E}x"])
            #expect(added.status == 0, "\(added)")
        }
        let table = try sandbox.store("list", "s")
        #expect(table.status == 0, "\(table)")
        let rows = table.stdout.split(separator: "\n").dropFirst().map(String.init)
        #expect(rows.count == cases.count)
        for (cid, shown) in cases {
            let row = rows.first { $0.hasPrefix(shown + " ") }
            #expect(row != nil, "\(shown) not in\n\(table.stdout)")
            #expect(row?.hasSuffix(#""l\u202ex""#) == true, "\(row ?? "")")
            if shown.hasPrefix("\"") { #expect(!table.stdout.contains(cid)) }
        }
        // Nothing invisible reaches the terminal.
        #expect(!table.stdout.unicodeScalars.contains { JSONText.isHazard($0) && $0 != " " && $0 != "\n" })
        // The JSON output is exact.
        let json = try sandbox.store("list", "s", ["--json"]).stdoutJSONObject()
        guard case let .array(items)? = json["items"] else {
            Issue.record("no items: \(json)")
            return
        }
        #expect(Set(items.compactMap { $0.objectValue?["conversation"]?.stringValue }) == Set(cases.map(\.cid)))
    }

    @Test("JSONText.quoted escapes exactly the hazards and decodes back to the text",
          arguments: ["c1", "a\u{0}b", "x\u{85}y", "\u{202E}", "\u{2066}\u{2069}", "\u{FEFF}", "tag\u{E0001}", "caf\u{E9}", "\u{1F600}", "a\\\"b\n"])
    func quotedRoundTrips(_ text: String) throws {
        let quoted = JSONText.quoted(text)
        #expect(!quoted.unicodeScalars.contains(where: JSONText.isHazard), "\(quoted)")
        #expect(try JSONParser.parse(Array(quoted.utf8)).stringValue == text)
    }

    // MARK: item 3. Errors that say what is missing, with a hint

    @Test("device show, bundle seal and seal --registration say which key is missing and how to make it")
    func missingKeysAreNamed() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("kd")
        let kd = sandbox.path("kd")
        let initRun = try runPushSeal(["device", "init", "--dir", sandbox.path("dev")])
        let registration = try sandbox.write(initRun.stdoutBytes, to: "registration.json")
        func bundleSeal(_ conversation: String, _ extra: [String] = []) throws -> PushSealRun {
            try runPushSeal(["bundle", "seal", "--dir", kd, "--conversation", conversation, "--registration", registration] + extra)
        }

        let show = try runPushSeal(["device", "show", "--dir", kd])
        expectFailure(show, messagePrefix: "the store in \(kd) has no device key", hint: true)
        #expect(show.stderrLines.contains("pushseal: hint: create it with: pushseal device init --dir \(kd)"), "\(show)")

        #expect(try sandbox.store("rotate", "kd", ["--conversation", "c1"]).status == 0)
        let noProvider = try bundleSeal("c1")
        expectFailure(noProvider, messagePrefix: "the key directory \(kd) has no provider key to seal key bundles with", hint: true)
        #expect(noProvider.stderrLines.contains("pushseal: hint: create one with: pushseal store provider-key create --dir \(kd)"), "\(noProvider)")
        let sealed = try runPushSeal(["seal", "--store", kd, "--registration", registration],
                                     stdin: #"{"cid":"c1","mid":"m1","ts":1700000000,"body":"hi"}"#)
        expectFailure(sealed, messagePrefix: "the key directory \(kd) has no provider key to seal key bundles with", hint: true)

        #expect(try runPushSeal(["store", "provider-key", "create", "--dir", kd]).status == 0)
        #expect(try bundleSeal("c1").status == 0)
        let epoch = try bundleSeal("c1", ["--epoch", "99"])
        expectFailure(epoch, messagePrefix: "conversation \"c1\" has no epoch 99 (its epochs: 1)", hint: true)
        let unknownProvider = try bundleSeal("c1", ["--provider-key-id", "AAAAAAAAAAAAAAAAAAAAAA"])
        expectFailure(unknownProvider, messagePrefix: "the key directory \(kd) has no provider key AAAAAAAAAAAAAAAAAAAAAA", hint: true)
        #expect(unknownProvider.stderrLines.contains("pushseal: hint: list its provider keys with: pushseal store provider-key list --dir \(kd)"))
        let noKeys = try bundleSeal("nokeys")
        expectFailure(noKeys, messagePrefix: "conversation \"nokeys\" has no keys in the key directory \(kd)", hint: true)
        #expect(noKeys.stderrLines.contains("pushseal: hint: give its first key with: pushseal store rotate --dir \(kd) --conversation nokeys"))

        // A conversation whose only epoch is past its not-after time has no current key.
        #expect(try sandbox.store("add", "kd", ["--conversation", "old", "--not-after", "1000", "--now", "2000"]).status == 0)
        let expired = try bundleSeal("old")
        expectFailure(expired, messagePrefix: "conversation \"old\" has no current key: every epoch is past its not-after time", hint: true)
        for run in [show, noProvider, sealed, epoch, unknownProvider, noKeys, expired] {
            #expect(!run.stderr.contains("no such key in the key store"), "\(run)")
        }
    }

    @Test("a millisecond ts says that ts is in seconds")
    func millisecondTimestamp() throws {
        let run = try runPushSeal(["seal", "--key", Fixtures.keyBase64URL], stdin: #"{"cid":"c1","mid":"m1","ts":1700000000000,"body":"hi"}"#)
        expectFailure(run, messagePrefix: #"invalid content: field "ts" must be at most 253402300799 (seconds since 1970, not milliseconds)"#, hint: true)
    }

    // MARK: item 7. inspect: a bundle text is named; inspect --bundle on empty input says what it expected

    @Test("plain inspect of a bundle text says it is a key bundle (exit 1, hint inspect --bundle); --json has keyBundle")
    func inspectRecognisesABundle() throws {
        let setup = try BundleCLITests.Setup()
        defer { setup.sandbox.remove() }
        let sealed = try setup.seal()
        try #require(sealed.status == 0, "\(sealed)")
        let text = try runPushSeal(["inspect"], stdin: sealed.stdoutBytes)
        expectFailure(text, messagePrefix: "this is a key bundle's text ('pushseal bundle seal'), not a notification payload", hint: true)
        #expect(text.stderrLines.contains("pushseal: hint: inspect it with: pushseal inspect --bundle"), "\(text)")
        #expect(text.stdout.hasPrefix("payload       key bundle text, 538 bytes\n"), "\(text)")
        let json = try runPushSeal(["inspect", "--json"], stdin: sealed.stdoutBytes)
        #expect(json.status == 1)
        let object = try json.stdoutJSONObject()
        #expect(object["valid"] == .bool(false))
        #expect(object["keyBundle"] == .bool(true))
        // A real payload is not taken for a bundle.
        let payload = try runPushSeal(["inspect", "--json"], stdin: Fixtures.envelope().wire)
        #expect(payload.status == 0, "\(payload)")
        #expect(try payload.stdoutJSONObject()["keyBundle"] == .bool(false))
        #expect(try runPushSeal(["inspect", "--bundle"], stdin: sealed.stdoutBytes).status == 0)
    }

    @Test("inspect --bundle on empty or whitespace-only input names the key bundle it expected", arguments: ["", " \n\t"])
    func inspectBundleOnEmptyInput(_ input: String) throws {
        let run = try runPushSeal(["inspect", "--bundle"], stdin: input)
        expectFailure(run, messagePrefix: "no key bundle (the base64url text 'pushseal bundle seal' prints) on standard input", hint: true)
        #expect(run.stderrLines.contains(
            "pushseal: hint: pipe one in or name a file: pushseal inspect --bundle < FILE, or pushseal inspect --bundle FILE"), "\(run)")
        #expect(run.stdout.isEmpty)
    }

    // MARK: item 8. The default master key file is beside the store directory, not inside it

    @Test("store init puts the master key at <dir>.master.key; a copy of the directory alone does not open")
    func defaultMasterKeyIsOutsideTheDirectory() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let object = try sandbox.initStore("keys")
        #expect(try object.string("masterKeyFile") == sandbox.path("keys.master.key"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.path("keys")).filter { $0.contains("master") } == [])
        let added = try sandbox.storeJSON("add", "keys", ["--conversation", "c1"])
        #expect(try sandbox.storeJSON("init", "keys/").string("masterKeyFile") == sandbox.path("keys.master.key"))

        // The backup KEY-STORE.md §5 describes: the directory copied without its master key.
        try FileManager.default.copyItem(atPath: sandbox.path("keys"), toPath: sandbox.path("backup"))
        let copy = try sandbox.store("get", "backup", ["--conversation", "c1"])
        expectFailure(copy, messagePrefix: "key store is locked: master key file \(sandbox.path("backup.master.key")) does not exist", hint: true)
        #expect(!copy.stdout.contains(try added.string("kid")))
    }

    @Test("a store with its key at the earlier default <dir>/master.key has it moved beside the directory, with a note, once")
    func legacyMasterKeyIsMoved() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let legacy = sandbox.path("keys/master.key")
        try sandbox.initStore("keys", ["--master-key-file", legacy])
        let added = try sandbox.storeJSON("add", "keys", ["--conversation", "c1", "--master-key-file", legacy])
        let key = try sandbox.contents(legacy)

        let first = try sandbox.store("list", "keys", ["--json"])
        #expect(first.status == 0, "\(first)")
        #expect(first.stderrLines == [
            "pushseal: note: moved the master key file \(legacy) to \(sandbox.masterKey("keys")), beside the store directory instead of "
                + "inside it (a copy of the directory no longer holds its key; Docs/KEY-STORE.md §5)",
        ], "\(first)")
        #expect(try first.stdoutJSONObject().objects("items").map { try $0.string("kid") } == [try added.string("kid")])
        #expect(!FileManager.default.fileExists(atPath: legacy))
        #expect(try sandbox.contents(sandbox.masterKey("keys")) == key)
        #expect(try sandbox.permissions(sandbox.masterKey("keys")) == 0o600)

        let second = try sandbox.store("list", "keys", ["--json"])
        #expect(second.status == 0 && second.stderr.isEmpty, "\(second)")
        // seal --store and open --store use the same default.
        let sealed = try runPushSeal(["seal", "--store", sandbox.path("keys")], stdin: #"{"cid":"c1","mid":"m1","ts":1700000000,"body":"hi"}"#)
        #expect(sealed.status == 0, "\(sealed)")
    }

    @Test("a move cut short (both names, one file) completes silently; an old copy beside a used key is reported")
    func legacyMasterKeyLeftovers() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        let legacy = sandbox.path("keys/master.key")
        try FileManager.default.linkItem(atPath: sandbox.masterKey("keys"), toPath: legacy)
        let linked = try sandbox.store("list", "keys")
        #expect(linked.status == 0 && linked.stderr == "pushseal: note: the store holds no keys\n", "\(linked)")
        #expect(!FileManager.default.fileExists(atPath: legacy))

        _ = try sandbox.write(Array(repeating: 7, count: 32), to: "keys/master.key")
        let copy = try sandbox.store("list", "keys")
        #expect(copy.status == 0, "\(copy)")
        #expect(copy.stderrLines.first == "pushseal: note: \(legacy) is inside the store directory, beside the master key file "
                + "\(sandbox.masterKey("keys")) that is used; remove it if it is an old copy (a copy of the directory would hold it)", "\(copy)")
        #expect(FileManager.default.fileExists(atPath: legacy))
    }

    @Test("the default of a directory named . or .. is resolved, never inside it", arguments: [".", "..", "./"])
    func dotDirectories(_ directory: String) throws {
        let file = MasterKeyPlacement.defaultFile(for: directory)
        #expect(file.hasSuffix(".master.key"))
        #expect(file.hasPrefix("/"), "\(file)")
        #expect(!file.hasSuffix("/.master.key"), "\(file)")
        #expect(MasterKeyPlacement.defaultFile(for: "keys") == "keys.master.key")
        #expect(MasterKeyPlacement.defaultFile(for: "/srv/keys//") == "/srv/keys.master.key")
    }

    // MARK: item 6. A killed store rotate-master leaves no key temporaries after the next open

    @Test("40 rotate-master runs killed with SIGKILL at seeded random times: after the next open no .tmp- file is left, the store opens")
    func killedRotateMastersLeaveNoTemporaries() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        var current = sandbox.path("master-0.key")
        try sandbox.initStore("s", ["--master-key-file", current])
        #expect(try sandbox.store("rotate", "s", ["--conversation", "c1", "--master-key-file", current]).status == 0)
        let executable = try #require(PushSealExecutable.path)
        var generator = TestSeed.generator()
        var committed = 0
        for round in 0..<40 {
            let next = sandbox.path("new-\(round).key")
            let child = try ChildPipes.spawn(
                executable, ["store", "rotate-master", "--dir", sandbox.path("s"), "--master-key-file", current, "--new-master-key-file", next],
                environment: nil, feedsInput: false)
            close(child.output)
            close(child.errors)
            usleep(UInt32.random(in: 0..<40_000, using: &generator))
            ProcessSpawner.send(SIGKILL, to: child.pid)
            ProcessSpawner.wait(for: child.pid)
            // The next open: with the old key, or with the new one if the rotation committed.
            var list = try sandbox.store("list", "s", ["--json", "--master-key-file", current])
            if list.status != 0, FileManager.default.fileExists(atPath: next) {
                list = try sandbox.store("list", "s", ["--json", "--master-key-file", next])
                if list.status == 0 {
                    current = next
                    committed += 1
                }
            }
            #expect(list.status == 0, "round \(round) (seed \(generator.seed)): the store does not open\n\(list)")
            let left = try FileManager.default.contentsOfDirectory(atPath: sandbox.root).filter { $0.contains(".tmp-") }
            #expect(left == [], "round \(round) (seed \(generator.seed)): \(left)")
        }
        print("killed rotate-master: 40 kills, \(committed) rotations committed")
    }
}

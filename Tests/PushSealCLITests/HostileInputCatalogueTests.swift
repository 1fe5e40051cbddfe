import Foundation
import PushSealCore
import PushSealJSON
import Synchronization
import Testing

/// The catalogue of hostile command-line inputs to the commands added since 0.2 — `device`,
/// `bundle`, `store provider-key`, `store rotate-master`, `send`, `inspect --bundle` — and the
/// identifier rule of `store add|rotate`: each input with its exact exit status and the first line
/// it prints on standard error (THREAT-MODEL.md §7.21). Nothing on the list may succeed, hang, trap,
/// print a secret, or write a control character to the terminal.
@Suite("Hostile input catalogue (CLI)")
struct HostileInputCatalogueTests {
    /// One hostile input: `arguments` with the fixture's paths substituted ($KD: a key directory
    /// with a provider key and conversation c1; $KD2: one with c1 and no provider key; $DEV: a device
    /// store that pinned $KD's provider key; $DEV2: another device; $REG: $DEV's registration;
    /// $BUNDLE: a bundle for $DEV; $ROOT: the sandbox), its standard input, the exit status, and
    /// the start of the first standard-error line.
    struct Entry: Sendable, CustomTestStringConvertible {
        let name: String
        let arguments: [String]
        var stdin: String? = nil
        let status: Int32
        let message: String
        var testDescription: String { name }
    }

    /// The fixture every entry runs against, made once.
    final class Fixture: Sendable {
        let sandbox: StoreSandbox
        let paths: [String: String]
        let bundleText: String
        let deviceKey: String

        init() throws {
            sandbox = try StoreSandbox()
            try sandbox.initStore("kd")
            try sandbox.initStore("kd2")
            let provider = try runPushSeal(["store", "provider-key", "create", "--dir", sandbox.path("kd")]).stdoutJSONObject()
            let providerKey = try provider.string("publicKey")
            for store in ["kd", "kd2"] {
                try #require(try sandbox.store("rotate", store, ["--conversation", "c1"]).status == 0)
            }
            let device = try runPushSeal(["device", "init", "--dir", sandbox.path("dev")])
            try #require(device.status == 0, "\(device)")
            deviceKey = try device.stdoutJSONObject().string("publicKey")
            let registration = try sandbox.write(device.stdoutBytes, to: "registration.json")
            try #require(try runPushSeal(["device", "init", "--dir", sandbox.path("dev2")]).status == 0)
            for store in ["dev", "dev2"] {
                try #require(try runPushSeal(["device", "pin", "--dir", sandbox.path(store), "--provider-key", providerKey]).status == 0)
            }
            let sealed = try runPushSeal(["bundle", "seal", "--dir", sandbox.path("kd"), "--conversation", "c1", "--registration", registration])
            try #require(sealed.status == 0, "\(sealed)")
            bundleText = sealed.stdout
            let bundle = try sandbox.write(sealed.stdoutBytes, to: "c1.bundle")
            _ = try sandbox.write(Array(#"{"suite":"pushseal-v1-x25519","deviceKeyId":"x"}"#.utf8), to: "bad-registration.json")
            let zero = Base64URL.encode([UInt8](repeating: 0, count: 32))
            let zeroID = KeyBundle.deviceKeyID(of: [UInt8](repeating: 0, count: 32)).base64URL
            _ = try sandbox.write(Array(#"{"suite":"pushseal-v1-x25519","deviceKeyId":"\#(zeroID)","publicKey":"\#(zero)"}"#.utf8),
                                  to: "zero-registration.json")
            try FileManager.default.createDirectory(atPath: sandbox.path("a-directory"), withIntermediateDirectories: false)
            paths = [
                "$KD2": sandbox.path("kd2"), "$KD": sandbox.path("kd"), "$DEV2": sandbox.path("dev2"), "$DEV": sandbox.path("dev"),
                "$REG": registration, "$BUNDLE": bundle, "$ROOT": sandbox.root, "$OWN": deviceKey,
            ]
        }

        func substitute(_ text: String) -> String {
            // Longest names first ($KD2 before $KD).
            paths.keys.sorted { $0.count > $1.count }.reduce(text) { $0.replacingOccurrences(of: $1, with: paths[$1]!) }
        }

        static let shared = Mutex<Fixture?>(nil)

        static func get() throws -> Fixture {
            try shared.withLock { fixture in
                if let fixture { return fixture }
                let made = try Fixture()
                fixture = made
                return made
            }
        }
    }

    static let kid = "AAAAAAAAAAAAAAAAAAAAAA"
    static let zeroKey = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    static let order8Key = "4Ot6fDtBuK4WVuP68Z_EatoJjeucMrH9hmIFFl9JuAA"
    static let apns = ["--apns-key-id", "ABC123DEFG", "--apns-team-id", "DEF123GHIJ", "--apns-topic", "com.example.chat"]

    static let entries: [Entry] = [
        // device
        Entry(name: "device init on a store that has a device key", arguments: ["device", "init", "--dir", "$DEV"],
              status: 1, message: "pushseal: error: the device store in $DEV already has a device key"),
        Entry(name: "device show on a key directory without a device key", arguments: ["device", "show", "--dir", "$KD"],
              status: 1, message: "pushseal: error: the store in $KD has no device key"),
        Entry(name: "device show on a missing store", arguments: ["device", "show", "--dir", "$ROOT/missing"],
              status: 1, message: "pushseal: error: no key store: directory $ROOT/missing does not exist"),
        Entry(name: "device pin: a short key", arguments: ["device", "pin", "--dir", "$DEV", "--provider-key", "AAAA"],
              status: 64, message: "Error: The value 'AAAA' is invalid for '--provider-key <key>': decodes to 3 bytes; a provider public key is exactly 32"),
        Entry(name: "device pin: not base64url", arguments: ["device", "pin", "--dir", "$DEV", "--provider-key", "a+b/c="],
              status: 64, message: "Error: The value 'a+b/c=' is invalid for '--provider-key <key>': not base64url without padding"),
        Entry(name: "device pin: the all-zero point", arguments: ["device", "pin", "--dir", "$DEV", "--provider-key", zeroKey],
              status: 1, message: "pushseal: error: cannot pin this provider key: the provider public key is a point of small order"),
        Entry(name: "device pin: an order-8 point", arguments: ["device", "pin", "--dir", "$DEV", "--provider-key", order8Key],
              status: 1, message: "pushseal: error: cannot pin this provider key: the provider public key is a point of small order"),
        Entry(name: "device pin: the device's own key", arguments: ["device", "pin", "--dir", "$DEV", "--provider-key", "$OWN"],
              status: 1, message: "pushseal: error: cannot pin this provider key: the provider public key is this store's own device public key"),
        Entry(name: "device init on a PostgreSQL URI", arguments: ["device", "init", "--dir", "postgresql://u@localhost/db"],
              status: 64, message: "Error: '--dir' is a PostgreSQL connection URI, but this command works on a SQLite key store directory only"),
        Entry(name: "device show with an empty --dir", arguments: ["device", "show", "--dir", ""],
              status: 64, message: "Error: The value '' is invalid for '--dir <dir>': empty path"),
        // bundle seal / install
        Entry(name: "bundle seal --epoch 99", arguments: ["bundle", "seal", "--dir", "$KD", "--conversation", "c1", "--registration", "$REG", "--epoch", "99"],
              status: 1, message: "pushseal: error: conversation \"c1\" has no epoch 99 (its epochs: 1)"),
        Entry(name: "bundle seal --epoch 0", arguments: ["bundle", "seal", "--dir", "$KD", "--conversation", "c1", "--registration", "$REG", "--epoch", "0"],
              status: 64, message: "Error: The value '0' is invalid for '--epoch <n>': must be between 1 and 2147483647"),
        Entry(name: "bundle seal with an unknown --provider-key-id",
              arguments: ["bundle", "seal", "--dir", "$KD", "--conversation", "c1", "--registration", "$REG", "--provider-key-id", kid],
              status: 1, message: "pushseal: error: the key directory $KD has no provider key \(kid)"),
        Entry(name: "bundle seal with a malformed --provider-key-id",
              arguments: ["bundle", "seal", "--dir", "$KD", "--conversation", "c1", "--registration", "$REG", "--provider-key-id", "x"],
              status: 64, message: "Error: The value 'x' is invalid for '--provider-key-id <id>': not a 16-byte base64url id"),
        Entry(name: "bundle seal for a conversation without keys", arguments: ["bundle", "seal", "--dir", "$KD", "--conversation", "nokeys", "--registration", "$REG"],
              status: 1, message: "pushseal: error: conversation \"nokeys\" has no keys in the key directory $KD"),
        Entry(name: "bundle seal on a key directory without a provider key", arguments: ["bundle", "seal", "--dir", "$KD2", "--conversation", "c1", "--registration", "$REG"],
              status: 1, message: "pushseal: error: the key directory $KD2 has no provider key to seal key bundles with"),
        Entry(name: "bundle seal with a missing registration file", arguments: ["bundle", "seal", "--dir", "$KD", "--conversation", "c1", "--registration", "$ROOT/none.json"],
              status: 1, message: "pushseal: error: cannot open '$ROOT/none.json': No such file or directory"),
        Entry(name: "bundle seal with a registration without a public key",
              arguments: ["bundle", "seal", "--dir", "$KD", "--conversation", "c1", "--registration", "$ROOT/bad-registration.json"],
              status: 1, message: "pushseal: error: unusable device public key"),
        Entry(name: "bundle seal to the all-zero device key",
              arguments: ["bundle", "seal", "--dir", "$KD", "--conversation", "c1", "--registration", "$ROOT/zero-registration.json"],
              status: 1, message: "pushseal: error: unusable device public key"),
        Entry(name: "bundle seal --lifetime -1", arguments: ["bundle", "seal", "--dir", "$KD", "--conversation", "c1", "--registration", "$REG", "--lifetime", "-1"],
              status: 64, message: "Error: The value '-1' is invalid for '--lifetime <seconds>': not a number of seconds from 0 to 2^63 - 1"),
        Entry(name: "seal --registration on a key directory without a provider key",
              arguments: ["seal", "--store", "$KD2", "--registration", "$REG"], stdin: #"{"cid":"c1","mid":"m1","ts":1700000000,"body":"hi"}"#,
              status: 1, message: "pushseal: error: the key directory $KD2 has no provider key to seal key bundles with"),
        Entry(name: "bundle install of garbage", arguments: ["bundle", "install", "--dir", "$DEV"], stdin: "not a bundle",
              status: 1, message: "pushseal: error: key bundle refused (malformed_bundle)"),
        Entry(name: "bundle install of empty input", arguments: ["bundle", "install", "--dir", "$DEV"], stdin: "",
              status: 1, message: "pushseal: error: no bundle text on standard input"),
        Entry(name: "bundle install of another device's bundle", arguments: ["bundle", "install", "--dir", "$DEV2", "$BUNDLE"],
              status: 1, message: "pushseal: error: key bundle refused (bundle_authentication_failed)"),
        Entry(name: "bundle install into a store without a device key", arguments: ["bundle", "install", "--dir", "$KD", "$BUNDLE"],
              status: 1, message: "pushseal: error: key bundle refused (store_locked)"),
        // store provider-key
        Entry(name: "store provider-key remove of an unknown id", arguments: ["store", "provider-key", "remove", "--dir", "$KD", "--id", kid],
              status: 1, message: "pushseal: error: no provider key with id \(kid) in $KD"),
        Entry(name: "store provider-key remove with a malformed id", arguments: ["store", "provider-key", "remove", "--dir", "$KD", "--id", "x"],
              status: 64, message: "Error: The value 'x' is invalid for '--id <id>'"),
        Entry(name: "store provider-key create on a PostgreSQL URI without a master key file", arguments: ["store", "provider-key", "create", "--dir", "postgresql://u@localhost/db"],
              status: 64, message: "Error: '--dir <uri>' needs '--master-key-file <file>'"),
        Entry(name: "store provider-key list on a missing store", arguments: ["store", "provider-key", "list", "--dir", "$ROOT/missing"],
              status: 1, message: "pushseal: error: no key store: directory $ROOT/missing does not exist"),
        // store rotate-master
        Entry(name: "store rotate-master to the current key file",
              arguments: ["store", "rotate-master", "--dir", "$KD", "--new-master-key-file", "$KD.master.key"],
              status: 64, message: "Error: The value '$KD.master.key' is invalid for '--new-master-key-file <file>': it is the store's current master key file"),
        Entry(name: "store rotate-master with an empty path", arguments: ["store", "rotate-master", "--dir", "$KD", "--new-master-key-file", ""],
              status: 64, message: "Error: The value '' is invalid for '--new-master-key-file <file>': empty path"),
        Entry(name: "store rotate-master into a missing directory",
              arguments: ["store", "rotate-master", "--dir", "$KD", "--new-master-key-file", "$ROOT/none/new.key"],
              status: 1, message: "pushseal: error: key store is locked: cannot create master key file $ROOT/none/new.key"),
        Entry(name: "store rotate-master to a directory", arguments: ["store", "rotate-master", "--dir", "$KD", "--new-master-key-file", "$ROOT/a-directory"],
              status: 1, message: "pushseal: error: key store is locked: master key file $ROOT/a-directory is not a regular file"),
        Entry(name: "store rotate-master of a missing store", arguments: ["store", "rotate-master", "--dir", "$ROOT/missing", "--new-master-key-file", "$ROOT/n.key"],
              status: 1, message: "pushseal: error: no key store: directory $ROOT/missing does not exist"),
        // send (every one fails before any connection)
        Entry(name: "send without credentials", arguments: ["send", "--store", "$KD"], stdin: "{}\n",
              status: 64, message: "Error: Nothing to send with: give '--apns-key-file <p8>' (with its ids), '--fcm-service-account <json>', or both."),
        Entry(name: "send with a missing APNs key file", arguments: ["send", "--store", "$KD", "--apns-key-file", "$ROOT/none.p8"] + apns, stdin: "{}\n",
              status: 1, message: "pushseal: error: cannot open '$ROOT/none.p8': No such file or directory"),
        Entry(name: "send with both --key and --store", arguments: ["send", "--store", "$KD", "--key", Fixtures.keyBase64URL, "--apns-key-file", "$ROOT/none.p8"] + apns,
              stdin: "{}\n", status: 64, message: "Error: Give either a key (--key, --key-file) or '--store <dir>', not both."),
        Entry(name: "send --max-in-flight 0", arguments: ["send", "--store", "$KD", "--max-in-flight", "0", "--apns-key-file", "$ROOT/none.p8"] + apns,
              stdin: "{}\n", status: 64, message: "Error: The value '0' is invalid for '--max-in-flight <n>'"),
        // inspect --bundle and bundles given to plain inspect
        Entry(name: "inspect --bundle of empty input", arguments: ["inspect", "--bundle"], stdin: "",
              status: 1, message: "pushseal: error: no key bundle (the base64url text 'pushseal bundle seal' prints) on standard input"),
        Entry(name: "inspect --bundle of whitespace", arguments: ["inspect", "--bundle"], stdin: " \n\t",
              status: 1, message: "pushseal: error: no key bundle (the base64url text 'pushseal bundle seal' prints) on standard input"),
        Entry(name: "inspect --bundle of garbage", arguments: ["inspect", "--bundle"], stdin: "%%%",
              status: 1, message: "pushseal: error: malformed key bundle"),
        Entry(name: "inspect of a bundle text", arguments: ["inspect", "$BUNDLE"],
              status: 1, message: "pushseal: error: this is a key bundle's text ('pushseal bundle seal'), not a notification payload"),
        // identifiers of new keys (SPEC §5.1)
        Entry(name: "store add --conversation with LF", arguments: ["store", "add", "--dir", "$KD", "--conversation", "a\nb"],
              status: 64, message: #"Error: The value "a\nb" is invalid for '--conversation <cid>'"#),
        Entry(name: "store rotate --conversation with ESC", arguments: ["store", "rotate", "--dir", "$KD", "--conversation", "\u{1B}[2J"],
              status: 64, message: #"Error: The value "\u001b[2J" is invalid for '--conversation <cid>'"#),
    ]

    @Test("every hostile input: its exit status and first error line; no success, no raw control character", arguments: entries)
    func hostileInput(_ entry: Entry) throws {
        let fixture = try Fixture.get()
        let arguments = entry.arguments.map(fixture.substitute)
        let run = try runPushSeal(arguments, stdin: entry.stdin.map { Array($0.utf8) }, timeout: 20)
        #expect(run.status == entry.status, "\(entry.name)\n\(run)")
        let expected = fixture.substitute(entry.message)
        #expect(run.stderrLines.first?.hasPrefix(expected) == true, "\(entry.name): expected\n\(expected)\n\(run)")
        // Nothing reaches the terminal that could rewrite it.
        #expect(!run.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(run)")
        if run.status == 1 && !entry.arguments.contains("inspect") {
            #expect(run.stdout.isEmpty, "\(run)")
        }
    }

    @Test("the catalogue covers every new command")
    func coverage() {
        let commands = Set(Self.entries.map { $0.arguments.prefix { !$0.hasPrefix("-") }.prefix(3).joined(separator: " ") })
        for command in ["device init", "device show", "device pin", "bundle seal", "bundle install", "store provider-key remove",
                        "store provider-key create", "store provider-key list", "store rotate-master", "send", "inspect"] {
            #expect(commands.contains { $0.hasPrefix(command) }, "\(command) has no entry")
        }
        #expect(Self.entries.contains { $0.arguments.starts(with: ["inspect", "--bundle"]) })
        #expect(Set(Self.entries.map(\.name)).count == Self.entries.count)
    }
}

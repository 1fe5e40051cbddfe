import Foundation
import PushSealCore
import Testing

/// Every key store error as `pushseal: error: …` with an actionable hint, exit 1, nothing on
/// standard output.
@Suite struct StoreErrorTests {
    /// Each subcommand that opens an existing store, with arguments that are otherwise valid.
    static let commands: [(subcommand: String, arguments: [String])] = [
        ("add", ["--conversation", "c1"]),
        ("get", ["--conversation", "c1"]),
        ("list", []),
        ("list", ["--json"]),
        ("rotate", ["--conversation", "c1"]),
        ("remove", ["--all"]),
        ("purge", []),
        ("rotate-master", ["--new-master-key-file", "/nonexistent-dir/new.key"]),
    ]

    private func expectStoreFailure(
        _ run: PushSealRun, messagePrefix: String, hint: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectFailure(run, messagePrefix: messagePrefix, hint: true, sourceLocation: sourceLocation)
        #expect(run.stdout.isEmpty, "\(run)", sourceLocation: sourceLocation)
        #expect(run.stderrLines.contains("pushseal: hint: \(hint)"), "\(run)", sourceLocation: sourceLocation)
    }

    @Test(arguments: commands.indices)
    func missingStoreSaysHowToCreateIt(index: Int) throws {
        let (subcommand, arguments) = Self.commands[index]
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let dir = sandbox.path("nowhere")
        expectStoreFailure(try sandbox.store(subcommand, "nowhere", arguments),
                           messagePrefix: "no key store: directory \(dir) does not exist",
                           hint: "create the store with: pushseal store init --dir \(dir)")
        #expect(!FileManager.default.fileExists(atPath: dir), "only init creates a store")

        // A directory without a store file.
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        expectStoreFailure(try sandbox.store(subcommand, "nowhere", arguments),
                           messagePrefix: "no key store: \(sandbox.database("nowhere")) does not exist",
                           hint: "create the store with: pushseal store init --dir \(dir)")
    }

    @Test(arguments: commands.indices)
    func wrongMasterKeyFileIsLocked(index: Int) throws {
        let (subcommand, arguments) = Self.commands[index]
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        let other = try sandbox.write(Array(repeating: 0x42, count: 32), to: "other.key")
        let run = try sandbox.store(subcommand, "keys", arguments + ["--master-key-file", other])
        expectStoreFailure(run, messagePrefix: "key store is locked: wrong master key",
                           hint: "\(other) is not the master key this store was initialized with (the master key file given with --master-key-file)")
    }

    @Test func groupReadableMasterKeyFileIsRefused() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        let file = sandbox.masterKey("keys")
        for mode in [0o640, 0o604, 0o644] {
            try sandbox.chmod(file, mode)
            let octal = "0" + String(mode, radix: 8)
            expectStoreFailure(try sandbox.store("list", "keys"),
                               messagePrefix: "key store is locked: master key file \(file) is accessible by group or others (mode \(octal))",
                               hint: "the master key file must not be accessible by group or others (it is \(octal)): chmod 600 \(file)")
        }
        try sandbox.chmod(file, 0o400)
        #expect(try sandbox.store("list", "keys").status == 0, "0400 is fine")
    }

    @Test func missingOrMalformedMasterKeyFile() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        let file = sandbox.masterKey("keys")
        let key = try sandbox.contents(file)
        try FileManager.default.removeItem(atPath: file)
        expectStoreFailure(try sandbox.store("list", "keys"),
                           messagePrefix: "key store is locked: master key file \(file) does not exist",
                           hint: "the master key file \(file) does not exist (the default master key file <dir>.master.key, beside the store directory; give another one with --master-key-file)")

        try sandbox.write(key + [0], to: "keys.master.key")
        expectStoreFailure(try sandbox.store("list", "keys"),
                           messagePrefix: "key store is locked: master key file \(file) holds 33 bytes",
                           hint: "a master key file holds exactly 32 raw bytes; \(file) holds 33 (the default master key file <dir>.master.key, beside the store directory; give another one with --master-key-file)")
    }

    @Test func aFileThatIsNotADatabase() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        try sandbox.write(Array(repeating: 0x41, count: 4096), to: "keys/pushseal-keys.sqlite3")
        let run = try sandbox.store("list", "keys")
        expectStoreFailure(run, messagePrefix: "SQLite error 26 (extended 26): file is not a database",
                           hint: "\(sandbox.database("keys")) is not an SQLite database: check --dir")
        #expect(run.stderrLines.contains("pushseal: hint: SQLite result code 26, extended code 26 (https://www.sqlite.org/rescode.html)"), "\(run)")
    }

    @Test func aStoreWrittenByANewerVersion() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        try sandbox.tamper("keys", "PRAGMA user_version = 99")
        let run = try sandbox.store("list", "keys")
        expectFailure(run, messagePrefix: "key store file format version 99 is not supported (this version reads up to 9)", hint: true)
        #expect(run.stderr.contains("written by a newer pushseal"), "\(run)")
    }

    @Test func aTamperedItemNamesItsKid() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        let kid = try sandbox.storeJSON("add", "keys", ["--conversation", "c1"]).string("kid")
        let other = try sandbox.storeJSON("add", "keys", ["--conversation", "c2"]).string("kid")
        // Move the item to another epoch: its sealed key no longer matches its row.
        try sandbox.tamper("keys", "UPDATE keys SET epoch = 5 WHERE conversation = 'c1'")
        let run = try sandbox.store("get", "keys", ["--kid", kid])
        expectStoreFailure(run, messagePrefix: "the stored key \(kid) is corrupted",
                           hint: "remove it with: pushseal store remove --dir \(sandbox.path("keys")) --kid \(kid), then provision that key again")
        // The other item is unaffected, and the hint's command works.
        #expect(try sandbox.store("get", "keys", ["--kid", other]).status == 0)
        #expect(try sandbox.storeJSON("remove", "keys", ["--kid", kid]).integer("removed") == 1)
    }

    @Test func hintsRepeatTheGivenMasterKeyFileAndQuotePaths() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let keyFile = sandbox.path("my keys.bin")
        let run = try sandbox.store("list", "no store", ["--master-key-file", keyFile])
        expectStoreFailure(run, messagePrefix: "no key store: directory \(sandbox.path("no store")) does not exist",
                           hint: "create the store with: pushseal store init --dir '\(sandbox.path("no store"))' --master-key-file '\(keyFile)'")
    }
}

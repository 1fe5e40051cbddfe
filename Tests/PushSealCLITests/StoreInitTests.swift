import Foundation
import Testing
import PushSealJSON

/// `pushseal store init`: directory, database and master key file, and what a second run does.
@Suite struct StoreInitTests {
    @Test func createsAPrivateDirectoryDatabaseAndMasterKey() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let run = try sandbox.store("init", "nested/keys")
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty, "\(run)")
        let object = try run.stdoutJSONObject()
        #expect(object.names == ["created", "dir", "file", "masterKeyFile"])
        #expect(try object.bool("created"))
        #expect(try object.string("dir") == sandbox.path("nested/keys"))
        #expect(try object.string("file") == sandbox.database("nested/keys"))
        #expect(try object.string("masterKeyFile") == sandbox.masterKey("nested/keys"))
        #expect(try sandbox.permissions(sandbox.path("nested/keys")) == 0o700)
        #expect(try sandbox.permissions(sandbox.database("nested/keys")) == 0o600)
        #expect(try sandbox.permissions(sandbox.masterKey("nested/keys")) == 0o600)
        #expect(try sandbox.contents(sandbox.masterKey("nested/keys")).count == 32)
        // A new store is empty and usable.
        #expect(try sandbox.storeJSON("list", "nested/keys", ["--json", "--now", "1"]).objects("items").isEmpty)
    }

    @Test func rerunningOnAnExistingStoreChangesNothingAndSaysSo() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        let added = try sandbox.storeJSON("add", "keys", ["--conversation", "c1"])
        let key = try sandbox.contents(sandbox.masterKey("keys"))

        let again = try sandbox.store("init", "keys")
        #expect(again.status == 0, "\(again)")
        #expect(try again.stdoutJSONObject().bool("created") == false)
        #expect(again.stderrLines == ["pushseal: note: a key store already exists in \(sandbox.path("keys")); checked it, nothing changed"])
        #expect(try sandbox.contents(sandbox.masterKey("keys")) == key)
        let items = try sandbox.storeJSON("list", "keys", ["--json"]).objects("items")
        #expect(try items.map { try $0.string("kid") } == [try added.string("kid")])
    }

    @Test func anExistingMasterKeyFileIsUsedNeverReplaced() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let keyBytes = [UInt8](repeating: 0x5A, count: 32)
        let keyFile = try sandbox.write(keyBytes, to: "master.key")
        let run = try sandbox.store("init", "keys", ["--master-key-file", keyFile])
        #expect(run.status == 0, "\(run)")
        #expect(try run.stdoutJSONObject().string("masterKeyFile") == keyFile)
        #expect(run.stderr.contains("under the existing master key file \(keyFile)"), "\(run)")
        #expect(try sandbox.contents(keyFile) == keyBytes)
        #expect(!FileManager.default.fileExists(atPath: sandbox.masterKey("keys")), "no default key file next to the store")
        // The store opens with that key file only.
        #expect(try sandbox.store("list", "keys", ["--master-key-file", keyFile]).status == 0)
        expectFailure(try sandbox.store("list", "keys"), messagePrefix: "key store is locked: master key file", hint: true)
    }

    @Test func anExistingStoreWhoseMasterKeyIsMissingIsNotReKeyed() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("keys")
        try FileManager.default.removeItem(atPath: sandbox.masterKey("keys"))
        let run = try sandbox.store("init", "keys")
        expectFailure(run, messagePrefix: "key store is locked: master key file \(sandbox.masterKey("keys")) does not exist", hint: true)
        #expect(run.stderr.contains("init never replaces a store's master key"), "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: sandbox.masterKey("keys")))
    }

    @Test func aMasterKeyFileInAMissingDirectoryLeavesNothingBehind() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let run = try sandbox.store("init", "keys", ["--master-key-file", sandbox.path("missing/master.key")])
        expectFailure(run, messagePrefix: "key store is locked: cannot create master key file", hint: true)
        #expect(run.stderr.contains("the directory \(sandbox.path("missing")) of the master key file does not exist"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("keys")), "the new store directory is removed again")
    }

    @Test func aRegularFileWhereTheDirectoryShouldBeIsAnError() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.write([1, 2, 3], to: "keys")
        let run = try sandbox.store("init", "keys")
        expectFailure(run, messagePrefix: "key store is locked: \(sandbox.path("keys")) is not a directory", hint: true)
    }

    @Test func aGroupReadableDirectoryIsWarnedAbout() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try FileManager.default.createDirectory(atPath: sandbox.path("keys"), withIntermediateDirectories: false)
        try sandbox.chmod(sandbox.path("keys"), 0o755)
        let run = try sandbox.store("init", "keys")
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("pushseal: warning: \(sandbox.path("keys")) is accessible by group or others (mode 0755)"), "\(run)")
        #expect(run.stderr.contains("chmod 700"), "\(run)")
    }
}

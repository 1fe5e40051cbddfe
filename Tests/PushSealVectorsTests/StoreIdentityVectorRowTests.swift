import Foundation
import PushSealCore
import PushSealJSON
import PushSealKeyDirectory
@testable import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Testing

/// The identity vectors are the SQLite store's own rows: each case's columns and blob, written
/// into a store file opened with the vector's master key, are read back through the public API
/// (device key, provider key pairs, pinned keys, registrations, the current provider key) — a
/// valid case as its columns say, an invalid one refused as `invalidStore` (or, for the record,
/// `providerKeyMissing(nil)`).
@Suite("Key-store identity vectors in a real store file")
struct StoreIdentityVectorRowTests {
    static func cases(kind: String) throws -> [JSONObject] {
        let root = try JSONParser.parse(Array(try #require(FileManager.default.contents(atPath: committedStoreVectorFile.path))), maximumDepth: 8)
        guard case let .array(tests)? = root.objectValue?["tests"] else { throw VectorRowError.noTests }
        return tests.compactMap(\.objectValue).filter { $0["kind"]?.stringValue == kind }
    }

    enum VectorRowError: Error { case noTests, missing(String) }

    static func bytes(_ test: JSONObject, _ name: String) throws -> [UInt8] {
        guard let value = test[name]?.stringValue.flatMap(Hex.decode) else { throw VectorRowError.missing(name) }
        return value
    }

    static func integer(_ test: JSONObject, _ name: String) throws -> Int64 {
        guard let value = test[name]?.integerValue else { throw VectorRowError.missing(name) }
        return value
    }

    /// A fresh store under the vectors' master key, and a raw connection to its file.
    static func makeStore() throws -> (store: DeviceKeyStore, raw: SQLiteConnection) {
        let master = try bytes(try #require(try cases(kind: "identity").first), "masterKey")
        let directory = NSTemporaryDirectory() + "pushseal-identity-vectors-" + UUID().uuidString
        let store = try DeviceKeyStore(directory: directory, masterKey: .bytes(master), create: true)
        return (store, try SQLiteConnection(path: directory + "/" + DeviceKeyStore.fileName))
    }

    /// Replaces every identity row and registration with `test`'s row.
    static func write(_ test: JSONObject, _ raw: SQLiteConnection) throws {
        func blob(_ name: String) throws -> String { "x'\(Hex.encode(try bytes(test, name)))'" }
        let kind = try #require(test["identityKind"]?.stringValue)
        let columns = "\(try blob("id")), \(try blob("publicKey")), \(try integer(test, "createdAt"))"
        try raw.execute("DELETE FROM identities; DELETE FROM devices")
        if kind == "registered" {
            let revokedAt = test["revokedAt"]?.integerValue.map(String.init) ?? "NULL"
            try raw.execute("INSERT INTO devices (id, public_key, created_at, revoked_at, sealed) VALUES (\(columns), \(revokedAt), \(try blob("sealedHex")))")
        } else {
            try raw.execute("INSERT INTO identities (kind, id, public_key, created_at, sealed) VALUES ('\(kind)', \(columns), \(try blob("sealedHex")))")
        }
    }

    @Test("each identity case written into a store file: a valid row reads back as its columns say, an invalid one is invalidStore")
    func identityRowsInAStoreFile() throws {
        let (store, raw) = try Self.makeStore()
        let directory = store.asDirectory
        let tests = try Self.cases(kind: "identity")
        #expect(tests.count == 14)
        for test in tests {
            try Self.write(test, raw)
            let id = try #require(KeyID(bytes: try Self.bytes(test, "id")))
            let publicKey = try Self.bytes(test, "publicKey"), createdAt = try Self.integer(test, "createdAt")
            let read: () throws(KeyDirectoryError) -> Void
            switch test["identityKind"]?.stringValue {
            case "device":
                read = { () throws(KeyDirectoryError) in
                    let pair = try store.deviceKey()
                    #expect(pair.publicKey == publicKey && pair.withUnsafePrivateKeyBytes { Array($0) } == (try? Self.bytes(test, "privateKey")))
                }
            case "provider":
                read = { () throws(KeyDirectoryError) in
                    #expect(try directory.providerKeys() == [ProviderKeyInfo(id: id, publicKey: publicKey, createdAt: createdAt)])
                    let pair = try directory.providerKey(id: id)
                    #expect(pair.withUnsafePrivateKeyBytes { Array($0) } == (try? Self.bytes(test, "privateKey")))
                }
            case "pinned":
                read = { () throws(KeyDirectoryError) in #expect(try store.pinnedProviderKeys() == [publicKey]) }
            case "registered":
                let revokedAt = test["revokedAt"]?.integerValue
                read = { () throws(KeyDirectoryError) in
                    #expect(try directory.registeredDevice(id: id) == RegisteredDevice(id: id, publicKey: publicKey, createdAt: createdAt, revokedAt: revokedAt))
                }
            default:
                Issue.record("unknown identityKind in tcId \(test["tcId"]?.integerValue ?? 0)")
                continue
            }
            let tcId = test["tcId"]?.integerValue ?? 0
            do throws(KeyDirectoryError) {
                try read()
                #expect(test["result"]?.stringValue == "valid", "tcId \(tcId): the store reads a row that must not open")
            } catch {
                guard case .invalidStore = error else { Issue.record("tcId \(tcId): \(error)"); continue }
                #expect(test["result"]?.stringValue == "invalid", "tcId \(tcId): the store refuses a valid row")
            }
        }
    }

    @Test("each provider-key record written into a store file beside its provider key: valid names the current key, invalid is providerKeyMissing(nil)")
    func providerKeyRecordsInAStoreFile() throws {
        let (store, raw) = try Self.makeStore()
        let provider = try #require(try Self.cases(kind: "identity").first {
            $0["identityKind"]?.stringValue == "provider" && $0["result"]?.stringValue == "valid"
        })
        try Self.write(provider, raw)
        let records = try Self.cases(kind: "providerKeyRecord")
        #expect(records.count == 2)
        for record in records {
            try raw.execute("INSERT OR REPLACE INTO meta (name, value) VALUES ('provider_key', x'\(Hex.encode(try Self.bytes(record, "valueHex")))')")
            let kid = try Self.bytes(record, "kid")
            do throws(KeyDirectoryError) {
                let current = try store.asDirectory.providerKey()
                #expect(record["result"]?.stringValue == "valid")
                #expect(current.providerKeyID.bytes == kid)
            } catch {
                #expect(record["result"]?.stringValue == "invalid" && error == .providerKeyMissing(nil), "\(error)")
            }
        }
    }
}

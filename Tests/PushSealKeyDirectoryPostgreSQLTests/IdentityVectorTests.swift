import Foundation
import PushSealCore
import PushSealJSON
import PushSealKeyDirectory
import PushSealKeyDirectoryPostgreSQL
import Testing

/// The key-store identity vectors (Vectors/pushseal-v1-store.json, Docs/KEY-STORE.md §3.6, §3.7)
/// are PostgreSQL's rows too: each provider key and registration case, written into
/// `pushseal_identities` / `pushseal_devices` of a directory opened with the vectors' master key,
/// reads back through the API (an invalid one is `invalidStore`), and each provider-key record
/// written into `pushseal_meta` names the current key (an invalid one is `providerKeyMissing(nil)`).
extension PostgreSQLTests {
@Suite("identity vectors")
struct IdentityVectorTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors/pushseal-v1-store.json")

    struct Malformed: Error { var field: String }

    static func cases() throws -> [JSONObject] {
        let root = try JSONParser.parse(Array(try #require(FileManager.default.contents(atPath: file.path))), maximumDepth: 8)
        guard case let .array(tests)? = root.objectValue?["tests"] else { throw Malformed(field: "tests") }
        return tests.compactMap(\.objectValue)
    }

    static func bytes(_ test: JSONObject, _ name: String) throws -> [UInt8] {
        guard let value = test[name]?.stringValue.flatMap(Hex.decode) else { throw Malformed(field: name) }
        return value
    }

    static func integer(_ test: JSONObject, _ name: String) throws -> Int64 {
        guard let value = test[name]?.integerValue else { throw Malformed(field: name) }
        return value
    }

    static func bytea(_ test: JSONObject, _ name: String) throws -> String { "'\\x\(TestServer.hex(try bytes(test, name)))'::bytea" }

    /// Replaces every provider key row and registration with `test`'s row.
    static func write(_ test: JSONObject, uri: String) throws {
        let columns = "\(try bytea(test, "id")), \(try bytea(test, "publicKey")), \(try integer(test, "createdAt"))"
        try TestServer.psql(uri, "DELETE FROM pushseal_identities; DELETE FROM pushseal_devices")
        if test["identityKind"]?.stringValue == "registered" {
            let revokedAt = test["revokedAt"]?.integerValue.map(String.init) ?? "NULL"
            try TestServer.psql(uri, "INSERT INTO pushseal_devices (id, public_key, created_at, revoked_at, sealed) VALUES (\(columns), \(revokedAt), \(try bytea(test, "sealedHex")))")
        } else {
            try TestServer.psql(uri, "INSERT INTO pushseal_identities (kind, id, public_key, created_at, sealed) VALUES ('provider', \(columns), \(try bytea(test, "sealedHex")))")
        }
    }

    @Test func providerKeyAndRegistrationVectorsAreThisDirectorysRows() throws {
        let tests = try Self.cases()
        let identities = tests.filter { $0["kind"]?.stringValue == "identity" && ["provider", "registered"].contains($0["identityKind"]?.stringValue) }
        #expect(identities.count == 9)
        let uri = try TestServer.freshSchemaURI()
        let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(try Self.bytes(identities[0], "masterKey")), create: true)
        for test in identities {
            try Self.write(test, uri: uri)
            let id = try #require(KeyID(bytes: try Self.bytes(test, "id")))
            let publicKey = try Self.bytes(test, "publicKey"), createdAt = try Self.integer(test, "createdAt")
            let privateKey = test["privateKey"]?.stringValue.flatMap(Hex.decode), revokedAt = test["revokedAt"]?.integerValue
            let valid = test["result"]?.stringValue == "valid", tcId = test["tcId"]?.integerValue ?? 0
            let error = directoryError { () throws in
                if test["identityKind"]?.stringValue == "provider" {
                    #expect(try directory.providerKeys() == [ProviderKeyInfo(id: id, publicKey: publicKey, createdAt: createdAt)], "tcId \(tcId)")
                    #expect(try directory.providerKey(id: id).withUnsafePrivateKeyBytes { Array($0) } == privateKey, "tcId \(tcId)")
                } else {
                    #expect(try directory.registeredDevice(id: id) == RegisteredDevice(id: id, publicKey: publicKey, createdAt: createdAt, revokedAt: revokedAt),
                            "tcId \(tcId)")
                }
            }
            if valid {
                #expect(error == nil, "tcId \(tcId): the directory refuses a valid row: \(String(describing: error))")
            } else if case .invalidStore? = error {
            } else {
                Issue.record("tcId \(tcId): an invalid row is not invalidStore: \(String(describing: error))")
            }
        }

        let provider = try #require(identities.first { $0["identityKind"]?.stringValue == "provider" && $0["result"]?.stringValue == "valid" })
        try Self.write(provider, uri: uri)
        let records = tests.filter { $0["kind"]?.stringValue == "providerKeyRecord" }
        #expect(records.count == 2)
        for record in records {
            try TestServer.psql(uri, "DELETE FROM pushseal_meta WHERE name = 'provider_key'")
            try TestServer.psql(uri, "INSERT INTO pushseal_meta (name, value) VALUES ('provider_key', \(try Self.bytea(record, "valueHex")))")
            let kid = try Self.bytes(record, "kid")
            if record["result"]?.stringValue == "valid" {
                #expect(try directory.providerKey(id: nil).providerKeyID.bytes == kid)
            } else {
                #expect(directoryError { _ = try directory.providerKey(id: nil) } == .providerKeyMissing(nil))
            }
        }
    }
}
}

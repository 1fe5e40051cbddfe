#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif
import Foundation
import PushSealCore
import Testing
import PushSealJSON

/// A private temporary directory for one store test, with helpers to run `pushseal store …` on
/// store directories inside it. Removed by ``remove()`` (call it in a `defer`).
struct StoreSandbox {
    /// The sandbox directory.
    let root: String

    init() throws {
        root = try makeTemporaryDirectory()
    }

    /// Removes the sandbox (after restoring permissions some tests take away).
    func remove() {
        _ = try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: root)
        removeTemporaryDirectory(root)
    }

    /// `root/name`.
    func path(_ name: String) -> String { root + "/" + name }

    /// The database file of the store directory `name`.
    func database(_ name: String) -> String { path(name) + "/pushseal-keys.sqlite3" }

    /// The default master key file of the store directory `name` (beside it: `name.master.key`).
    func masterKey(_ name: String) -> String { path(name) + ".master.key" }

    /// `pushseal store <subcommand> --dir root/<store> <arguments…>`.
    func store(_ subcommand: String, _ store: String, _ arguments: [String] = [], stdin: [UInt8]? = nil) throws -> PushSealRun {
        try runPushSeal(["store", subcommand, "--dir", path(store)] + arguments, stdin: stdin)
    }

    /// Runs `store init` and requires success.
    @discardableResult
    func initStore(_ store: String, _ arguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONObject {
        let run = try self.store("init", store, arguments)
        try #require(run.status == 0, "\(run)", sourceLocation: sourceLocation)
        return try run.stdoutJSONObject(sourceLocation: sourceLocation)
    }

    /// Runs a store subcommand that must succeed and print one JSON object.
    func storeJSON(
        _ subcommand: String, _ store: String, _ arguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> JSONObject {
        let run = try self.store(subcommand, store, arguments)
        try #require(run.status == 0, "\(run)", sourceLocation: sourceLocation)
        return try run.stdoutJSONObject(sourceLocation: sourceLocation)
    }

    /// Writes `bytes` to `root/name` with `permissions`.
    @discardableResult
    func write(_ bytes: [UInt8], to name: String, permissions: Int = 0o600) throws -> String {
        let file = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: file)
        return file
    }

    /// The permission bits of `path`.
    func permissions(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// Changes the permission bits of `path`.
    func chmod(_ path: String, _ permissions: Int) throws {
        try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: path)
    }

    /// The bytes of `path`.
    func contents(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Runs SQL on a store's database directly, bypassing the store (tampering, newer versions).
    func tamper(_ store: String, _ sql: String) throws {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(database(store), &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
              sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK
        else {
            throw RunPushSealError(description: "SQL failed: \(db.map { String(cString: sqlite3_errmsg($0)) } ?? "open failed")")
        }
    }
}

/// Values out of the JSON the store commands print.
extension JSONObject {
    /// A string member (test failure when absent or not a string).
    func string(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(self[name]?.stringValue, "no string \"\(name)\" in \(compactDescription)", sourceLocation: sourceLocation)
    }

    /// An integer member.
    func integer(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int64 {
        try #require(self[name]?.integerValue, "no integer \"\(name)\" in \(compactDescription)", sourceLocation: sourceLocation)
    }

    /// A boolean member.
    func bool(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Bool {
        guard case let .bool(value)? = self[name] else {
            Issue.record("no boolean \"\(name)\" in \(compactDescription)", sourceLocation: sourceLocation)
            throw RunPushSealError(description: "missing boolean \(name)")
        }
        return value
    }

    /// An array-of-objects member.
    func objects(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSONObject] {
        guard case let .array(values)? = self[name] else {
            Issue.record("no array \"\(name)\" in \(compactDescription)", sourceLocation: sourceLocation)
            throw RunPushSealError(description: "missing array \(name)")
        }
        return try values.map { try #require($0.objectValue, sourceLocation: sourceLocation) }
    }

    /// The member names, in order.
    var names: [String] { members.map(\.name) }

    /// Compact JSON, for messages.
    var compactDescription: String { JSONValue.object(self).compactText }
}

/// Notifications sealed for the `open --store` tests.
enum SealedPayloads {
    /// An APNs payload carrying `content` sealed under `key` (random salt).
    static func apns(_ content: NotificationContent, key: ConversationKey) throws -> [UInt8] {
        let envelope = Envelope.seal(content: try content.encoded(), with: key, paddedLength: 256)
        return Array(Fixtures.apnsPayload(wire: envelope.wire).utf8)
    }

    /// A chat message in `conversation`, sent at `sentAt`.
    static func message(
        _ conversation: String, id: String = "m1", sentAt: Int64 = 1_700_000_000, body: String = "Lunch at noon?"
    ) -> NotificationContent {
        NotificationContent(conversationID: conversation, messageID: id, sentAt: sentAt, title: "Alice", body: body)
    }

    /// The conversation key printed by `store get` (base64url in "key").
    static func key(fromExport object: JSONObject) throws -> ConversationKey {
        try ConversationKey(rawBytes: try Base64URL.decode(try object.string("key")))
    }
}

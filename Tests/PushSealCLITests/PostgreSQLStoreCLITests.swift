import Foundation
import PushSealCore
import PushSealJSON
import Testing

/// `pushseal` with a PostgreSQL connection URI for `--dir` / `--store`: the same commands as on a
/// SQLite store directory, run by the companion `pushseal-full` against the throwaway cluster
/// of scripts/with-postgres.sh (these tests FAIL without it, never skip). No output ever holds
/// the URI's password.
@Suite("PostgreSQL key directory through pushseal") struct PostgreSQLStoreCLITests {
    static let content = #"{"cid":"c1","mid":"m1","ts":1700000000,"body":"hello from the directory"}"#

    /// Every output of one scenario on one backend, by step name.
    struct Outputs {
        var runs: [(step: String, run: PushSealRun)] = []
        subscript(step: String) -> PushSealRun { runs.first { $0.step == step }!.run }
    }

    /// init (twice), add, rotate, get (current and by epoch), list, seal, seal --batch, purge
    /// (the retired epoch 1), remove (epoch 2), list again: every step must succeed.
    static func scenario(store: [String], seal: [String]) throws -> Outputs {
        var outputs = Outputs()
        func step(_ name: String, _ arguments: [String], stdin: String? = nil) throws {
            let run = try runPushSeal(arguments, stdin: stdin.map { Array($0.utf8) })
            try #require(run.status == 0, "\(name): \(run)")
            outputs.runs.append((name, run))
        }
        try step("init", ["store", "init"] + store)
        try step("init again", ["store", "init"] + store)
        try step("add", ["store", "add"] + store + ["--conversation", "c1", "--label", "first"])
        try step("rotate", ["store", "rotate"] + store + ["--conversation", "c1"])
        try step("get", ["store", "get"] + store + ["--conversation", "c1"])
        try step("get epoch 1", ["store", "get"] + store + ["--conversation", "c1", "--epoch", "1"])
        try step("list", ["store", "list"] + store + ["--json"])
        try step("seal", ["seal"] + seal + ["--conversation", "c1"], stdin: content)
        try step("seal batch", ["seal", "--batch"] + seal, stdin: content + "\n" + content.replacingOccurrences(of: "m1", with: "m2") + "\n")
        try step("purge", ["store", "purge"] + store + ["--grace", "0", "--now", "4000000000"])
        try step("remove", ["store", "remove"] + store + ["--conversation", "c1", "--epoch", "2"])
        try step("list after", ["store", "list"] + store + ["--json", "--now", "4000000000"])
        return outputs
    }

    @Test func theStoreCommandsAndSealWorkOnAURIWithTheSQLiteStoresOutputs() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let uri = try TestPostgreSQL.freshSchemaURI()
        let masterKey = sandbox.path("directory.key")
        let onServer = try Self.scenario(
            store: ["--dir", uri, "--master-key-file", masterKey], seal: ["--store", uri, "--master-key-file", masterKey])
        let onFile = try Self.scenario(store: ["--dir", sandbox.path("keys")], seal: ["--store", sandbox.path("keys")])

        // The same JSON members in the same order, the same values where they are not random.
        for ((step, server), (_, file)) in zip(onServer.runs, onFile.runs) where step != "list" && step != "list after" {
            if step.hasPrefix("seal") {
                let serverLines = server.stdout.split(separator: "\n"), fileLines = file.stdout.split(separator: "\n")
                #expect(serverLines.count == fileLines.count, "\(step)")
                for (line, other) in zip(serverLines, fileLines) {
                    let a = try #require(try JSONParser.parse(Array(line.utf8)).objectValue), b = try #require(try JSONParser.parse(Array(other.utf8)).objectValue)
                    #expect(a.names == b.names, "\(step)")
                }
                continue
            }
            let a = try server.stdoutJSONObject(), b = try file.stdoutJSONObject()
            #expect(a.names == b.names, "\(step): \(server.stdout) vs \(file.stdout)")
            for name in ["created", "conversation", "epoch", "removed", "deliveriesPruned", "duplicateLogCleared"] {
                #expect(a[name] == b[name], "\(step): \(name) differs: \(server.stdout) vs \(file.stdout)")
            }
        }
        #expect(try onServer["init"].stdoutJSONObject().bool("created") == true)
        #expect(try onServer["init again"].stdoutJSONObject().bool("created") == false)
        #expect(onServer["init"].stdout.contains(#""file":null"#))
        #expect(try onServer["rotate"].stdoutJSONObject().integer("epoch") == 2)
        #expect(try onServer["get"].stdoutJSONObject().string("kid") == onServer["rotate"].stdoutJSONObject().string("kid"))
        #expect(try onServer["get epoch 1"].stdoutJSONObject().string("kid") == onServer["add"].stdoutJSONObject().string("kid"))
        #expect(try onServer["purge"].stdoutJSONObject().integer("removed") == 1)
        #expect(try onServer["remove"].stdoutJSONObject().integer("removed") == 1)
        for step in ["list", "list after"] {
            let a = try onServer[step].stdoutJSONObject(), b = try onFile[step].stdoutJSONObject()
            #expect(a.names == b.names)
            let serverItems = try a.objects("items"), fileItems = try b.objects("items")
            #expect(serverItems.map(\.names) == fileItems.map(\.names), "\(step)")
            #expect(serverItems.map { $0["epoch"] } == fileItems.map { $0["epoch"] }, "\(step)")
            #expect(serverItems.map { $0["status"] } == fileItems.map { $0["status"] }, "\(step)")
        }
        #expect(try onServer["list after"].stdoutJSONObject().objects("items").isEmpty)

        // The payload sealed through the URI opens with the key 'store get' exported.
        let key = try onServer["get"].stdoutJSONObject().string("key")
        let opened = try runPushSeal(["open", "--key", key, "--conversation", "c1", "--now", "1700000000"], stdin: onServer["seal"].stdoutBytes)
        #expect(opened.status == 0, "\(opened)")
        #expect(opened.stdout.contains("hello from the directory"), "\(opened)")

        let password = try TestPostgreSQL.password(uri)
        for (step, run) in onServer.runs {
            #expect(!run.stdout.contains(password) && !run.stderr.contains(password), "\(step) printed the password")
        }
        #expect(onServer["init"].stdout.contains(":***@"), "\(onServer["init"])")
    }

    /// Issue 24 item 6: `store rotate-master --dir postgresql://…` (before: exit 64, "works on a
    /// SQLite key store directory only") reseals the directory under the new key in one
    /// transaction; the old key no longer opens it, the new one opens every key.
    @Test func rotateMasterOnAURI() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let uri = try TestPostgreSQL.freshSchemaURI()
        let old = sandbox.path("directory.key"), new = sandbox.path("new.key")
        #expect(try runPushSeal(["store", "init", "--dir", uri, "--master-key-file", old]).status == 0)
        let added = try runPushSeal(["store", "add", "--dir", uri, "--master-key-file", old, "--conversation", "c1"]).stdoutJSONObject()
        #expect(try runPushSeal(["store", "rotate", "--dir", uri, "--master-key-file", old, "--conversation", "c1"]).status == 0)
        let before = try runPushSeal(["store", "get", "--dir", uri, "--master-key-file", old, "--kid", try added.string("kid")]).stdoutJSONObject()

        let run = try runPushSeal(["store", "rotate-master", "--dir", uri, "--master-key-file", old, "--new-master-key-file", new])
        #expect(run.status == 0, "\(run)")
        let report = try run.stdoutJSONObject()
        #expect(try report.integer("resealedKeys") == 2 && report.integer("resealedIdentities") == 0 && report.integer("clearedDeliveries") == 0)
        #expect(!run.stderr.contains(try TestPostgreSQL.password(uri)))

        let stale = try runPushSeal(["store", "list", "--dir", uri, "--master-key-file", old])
        expectFailure(stale, messagePrefix: "key store is locked: wrong master key")
        let after = try runPushSeal(["store", "get", "--dir", uri, "--master-key-file", new, "--kid", try added.string("kid")]).stdoutJSONObject()
        #expect(try after.string("key") == before.string("key"))
        #expect(try runPushSeal(["store", "rotate", "--dir", uri, "--master-key-file", new, "--conversation", "c1"]).stdoutJSONObject()
            .integer("epoch") == 3, "the epoch records verify under the new key")
    }

    @Test func aWrongPasswordIsAClearErrorWithoutThePassword() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let uri = try TestPostgreSQL.freshSchemaURI()
        let password = try TestPostgreSQL.password(uri)
        let wrong = uri.replacingOccurrences(of: ":\(password)@", with: ":not-\(password)-either@")
        let run = try runPushSeal(["store", "list", "--dir", wrong, "--master-key-file", sandbox.path("k")])
        expectFailure(run, messagePrefix: "the key directory's database server is unavailable", hint: true)
        #expect(run.stderr.contains("password authentication failed"), "\(run)")
        #expect(!run.stderr.contains(password), "\(run)")
        #expect(run.stdout.isEmpty)
    }

    @Test(arguments: [
        "postgresql://pushseal:hunter2@/pushseal?host=/nonexistent-socket-directory",
        "postgresql://pushseal:hunter2@[::1/pushseal",
        "postgres://pushseal:hunter2@localhost:99999/pushseal",
    ])
    func aBadURIIsAClearErrorWithoutThePassword(uri: String) throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let run = try runPushSeal(["seal", "--store", uri, "--master-key-file", sandbox.path("k")], stdin: Array(Self.content.utf8))
        expectFailure(run, messagePrefix: "the key directory's database server is unavailable", hint: true)
        #expect(!run.stderr.contains("hunter2"), "\(run)")
        #expect(run.stdout.isEmpty)
    }

    @Test func aWrongMasterKeyIsRefused() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let uri = try TestPostgreSQL.freshSchemaURI()
        let created = try runPushSeal(["store", "init", "--dir", uri, "--master-key-file", sandbox.path("right")])
        try #require(created.status == 0, "\(created)")
        try sandbox.write(SystemRandom.bytes(count: 32), to: "wrong")
        let run = try runPushSeal(["store", "list", "--dir", uri, "--master-key-file", sandbox.path("wrong")])
        expectFailure(run, messagePrefix: "key store is locked: wrong master key", hint: true)
        #expect(!run.stderr.contains(try TestPostgreSQL.password(uri)))
    }

    @Test func aDatabaseWithoutADirectorySaysHowToCreateOne() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let uri = try TestPostgreSQL.freshSchemaURI()
        let run = try runPushSeal(["store", "get", "--dir", uri, "--master-key-file", sandbox.path("k"), "--conversation", "c1"])
        expectFailure(run, messagePrefix: "no key store: the database at postgresql://pushseal:***@", hint: true)
        #expect(run.stderrLines.contains { $0.hasPrefix("pushseal: hint: create the key directory with: pushseal store init --dir 'postgresql://pushseal:***@") }, "\(run)")
        #expect(!run.stderr.contains(try TestPostgreSQL.password(uri)), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("k")), "only init creates the master key file")
    }

    /// A store command, the bench and the demo on a URI: each needs the companion.
    @Test(arguments: [
        ["store", "list", "--dir", "URI", "--master-key-file", "k"],
        ["bench", "--quick", "--postgres", "URI"],
        ["demo", "--postgres", "URI"],
    ])
    func withoutTheCompanionPushsealSaysHowToGetIt(_ command: [String]) throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let lonely = sandbox.path("pushseal")
        try FileManager.default.copyItem(atPath: try #require(PushSealExecutable.path), toPath: lonely)
        let uri = "postgresql://pushseal:hunter2@db.internal/chat"
        let arguments = command.map { $0 == "URI" ? uri : $0 == "k" ? sandbox.path("k") : $0 }
        // A child spawned by another test between the copy's open and close may still hold the
        // copy open for writing for a moment (ETXTBSY, "Text file busy"): retry briefly.
        var attempt = 0
        var started: PushSealRun?
        while started == nil {
            do {
                started = try runPushSeal(arguments, executable: lonely)
            } catch let error as RunPushSealError where error.description.contains("Text file busy") && attempt < 50 {
                attempt += 1
                usleep(100_000)
            }
        }
        let run = try #require(started)
        expectFailure(run, messagePrefix: "a PostgreSQL key directory needs pushseal-full next to pushseal", hint: true)
        #expect(run.stderr.contains("--product pushseal-full"), "\(run)")
        #expect(!run.stderr.contains("hunter2"))
        #expect(run.stdout.isEmpty)
    }
}

/// The throwaway cluster's URI and a fresh schema per test.
enum TestPostgreSQL {
    /// PUSHSEAL_TEST_POSTGRES_URI, or a failure saying how to provide it.
    static func uri() throws -> String {
        guard let uri = ProcessInfo.processInfo.environment["PUSHSEAL_TEST_POSTGRES_URI"], !uri.isEmpty else {
            throw RunPushSealError(description: """
                PUSHSEAL_TEST_POSTGRES_URI is not set: these tests need the throwaway PostgreSQL cluster; \
                run them as: scripts/with-postgres.sh swift test --skip-build --filter PostgreSQL
                """)
        }
        return uri
    }

    /// A URI whose sessions use a fresh, empty schema of their own (tests running at once never
    /// see each other's tables).
    static func freshSchemaURI() throws -> String {
        let base = try uri()
        let name = "cli_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let psql = try runPushSeal(["psql", base, "-v", "ON_ERROR_STOP=1", "-qAtc", "CREATE SCHEMA \(name)"], executable: "/usr/bin/env")
        guard psql.status == 0 else { throw RunPushSealError(description: "psql failed: \(psql)") }
        return base + (base.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(name)"
    }

    /// The password in `uri`'s user information.
    static func password(_ uri: String) throws -> String {
        let authority = try #require(uri.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false).last)
        let userInfo = try #require(authority.split(separator: "@").first)
        return String(try #require(userInfo.split(separator: ":").last))
    }
}

import Foundation
import PushSealJSON
import Testing

/// `pushseal demo --postgres URI` (what scripts/demo.sh --postgres runs): the provider side on
/// PostgreSQL as two nodes, then the device, in process in the companion `pushseal-full`,
/// against the throwaway cluster of scripts/with-postgres.sh (these tests FAIL without it).
@Suite("pushseal demo --postgres") struct PostgreSQLDemoTests {
    @Test func twoNodesSealFromPostgreSQLAloneAndTheDeviceInstallsAndOpens() throws {
        let uri = try TestPostgreSQL.freshSchemaURI()
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let kept = directory + "/demo"
        let run = try runPushSeal(["demo", "--postgres", uri, "--dir", kept], timeout: 120)
        #expect(run.status == 0, "\(run)")
        let password = try TestPostgreSQL.password(uri)
        #expect(!run.stdout.contains(password) && !run.stderr.contains(password), "\(run)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.last == "", "\(run)")
        let labels = lines.dropLast().map { line in line.hasPrefix("{") ? "{" : String(line.prefix(11)) }
        #expect(labels == [
            "directory  ", "node A     ", "node A     ", "device     ", "node B     ", "node A     ", "node B     ",
            "device     ", "{", "device     ", "{", "device     ", "{", "device     ", "{",
        ], "\(run.stdout)")
        #expect(lines[0].hasPrefix("directory  postgresql://pushseal:***@") && lines[0].contains("(schema version "), "\(lines[0])")
        #expect(lines[2].hasPrefix("node A     rotated conv-demo to epoch 1, kid "), "\(lines[2])")
        #expect(lines[3].hasSuffix("provider key pinned; node A registered it in PostgreSQL"), "\(lines[3])")
        #expect(lines[4].contains("under epoch 1 (key from its cache)") && lines[4].contains("(provider key and registration from PostgreSQL)"), "\(lines[4])")
        #expect(lines[5].hasPrefix("node A     rotated conv-demo to epoch 2; node B used it ") && lines[5].hasSuffix(" ms after the commit (LISTEN/NOTIFY)"), "\(lines[5])")

        // Each bundle installs as the newest epoch, each payload decrypts on the device with its body.
        for (offset, epoch, body) in [(7, 1, "Sealed on node B, key from PostgreSQL"), (11, 2, "Sealed on node B under epoch 2")] {
            #expect(lines[offset] == "device     pushseal bundle install bundle-\(epoch).txt:")
            let installed = try #require(try JSONParser.parse(Array(lines[offset + 1].utf8)).objectValue)
            #expect(installed["outcome"] == .string("installed") && installed["conversation"] == .string("conv-demo"), "\(lines[offset + 1])")
            #expect(installed["epoch"] == .number(String(epoch)))
            #expect(lines[offset + 2] == "device     pushseal open --store payload-\(epoch).json:")
            let opened = try #require(try JSONParser.parse(Array(lines[offset + 3].utf8)).objectValue)
            #expect(opened["outcome"] == .string("decrypted") && opened["duplicate"] == .bool(false), "\(lines[offset + 3])")
            #expect(opened["content"]?.objectValue?["body"] == .string(body), "\(lines[offset + 3])")
        }
        // The files stay in --dir; no plaintext in the payloads that went to Apple.
        for epoch in [1, 2] {
            let payload = try String(contentsOfFile: kept + "/payload-\(epoch).json", encoding: .utf8)
            #expect(!payload.contains("Sealed on node B"), "\(payload)")
            #expect(FileManager.default.fileExists(atPath: kept + "/bundle-\(epoch).txt"))
        }
        #expect(FileManager.default.fileExists(atPath: kept + "/device"))
    }

    @Test func theSQLiteJSONReportIsNotMixedWithIt() throws {
        expectUsageError(
            try runPushSeal(["demo", "--postgres", "postgresql://pushseal:hunter2@db.internal/chat", "--json"]), command: "pushseal demo",
            message: "'--json' reports the SQLite walk-through; '--postgres <uri>' prints one line per step.")
        expectUsageError(
            try runPushSeal(["demo", "--postgres", "/var/run/postgresql"]), command: "pushseal demo",
            message: "'--postgres <uri>' takes a connection URI starting with postgresql:// or postgres://.")
    }
}

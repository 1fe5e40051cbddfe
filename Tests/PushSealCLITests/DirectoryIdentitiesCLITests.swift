import Foundation
import PushSealCore
import PushSealJSON
import Testing

/// Provider keys and device registrations through `pushseal` on both backends (issue 24 item 3):
/// `store provider-key create|promote`, `store device register|list|revoke`, `bundle seal
/// --registration <id>` and a device installing what the directory sealed — on a SQLite store
/// directory and on a PostgreSQL URI (the throwaway cluster; these tests FAIL without it).
@Suite("Directory identities through pushseal") struct DirectoryIdentitiesCLITests {
    static func scenario(_ sandbox: StoreSandbox, directory: [String]) throws {
        // A URI's password (between "://user:" and "@") never appears in any output.
        let password: String? = directory[1].hasPrefix("postgresql://")
            ? directory[1].split(separator: "@").first?.split(separator: ":").last.map(String.init) : nil
        func runPushSeal(_ arguments: [String], stdin: [UInt8]? = nil) throws -> PushSealRun {
            let run = try PushSealCLITests.runPushSeal(arguments, stdin: stdin)
            if let password { #expect(!run.stdout.contains(password) && !run.stderr.contains(password), "password printed: \(arguments.prefix(3))") }
            return run
        }
        func ok(_ arguments: [String], stdin: String? = nil) throws -> PushSealRun {
            let run = try runPushSeal(arguments, stdin: stdin.map { Array($0.utf8) })
            try #require(run.status == 0, "\(arguments.prefix(3)): \(run)")
            return run
        }
        let device = ["--dir", sandbox.path("device")]
        _ = try ok(["store", "init"] + directory)
        _ = try ok(["store", "rotate"] + directory + ["--conversation", "c1"])
        let first = try ok(["store", "provider-key", "create"] + directory).stdoutJSONObject()
        #expect(first["current"] == .bool(true), "the first provider key is current at once")
        let registration = try ok(["device", "init"] + device).stdout
        let registrationFile = sandbox.path("registration.json")
        try registration.write(toFile: registrationFile, atomically: true, encoding: .utf8)
        _ = try ok(["device", "pin"] + device + ["--provider-key", try #require(first["publicKey"]?.stringValue)])
        let registered = try ok(["store", "device", "register"] + directory + ["--registration", registrationFile]).stdoutJSONObject()
        let deviceID = try #require(registered["id"]?.stringValue)
        #expect(try ok(["store", "device", "list"] + directory).stdout.contains("\"id\":\"\(deviceID)\""))

        // bundle seal by the registered device's id, installed on the device.
        let bundle = try ok(["bundle", "seal"] + directory + ["--conversation", "c1", "--registration", deviceID]).stdout
        try bundle.write(toFile: sandbox.path("bundle.txt"), atomically: true, encoding: .utf8)
        #expect(try ok(["bundle", "install"] + device + [sandbox.path("bundle.txt")]).stdout.contains("\"outcome\":\"installed\""))

        // Once the directory registers devices: an unregistered one is refused, by file or by id.
        let other = try ok(["device", "init", "--dir", sandbox.path("other")]).stdout
        let otherFile = sandbox.path("other.json")
        try other.write(toFile: otherFile, atomically: true, encoding: .utf8)
        let unregistered = try runPushSeal(["bundle", "seal"] + directory + ["--conversation", "c1", "--registration", otherFile])
        #expect(unregistered.status == 1 && unregistered.stderr.contains("is not registered"), "\(unregistered)")
        let otherID = try #require(try JSONParser.parse(Array(other.utf8)).objectValue?["deviceKeyId"]?.stringValue)
        let unknownID = try runPushSeal(["bundle", "seal"] + directory + ["--conversation", "c1", "--registration", otherID])
        #expect(unknownID.status == 1 && unknownID.stderr.contains("no registered device with id \(otherID)"), "\(unknownID)")

        // A second provider key is not used until promoted.
        let second = try ok(["store", "provider-key", "create"] + directory).stdoutJSONObject()
        #expect(second["current"] == .bool(false))
        let unpromoted = try ok(["bundle", "seal"] + directory + ["--conversation", "c1", "--registration", deviceID]).stdout
        try unpromoted.write(toFile: sandbox.path("bundle2.txt"), atomically: true, encoding: .utf8)
        #expect(try ok(["bundle", "install"] + device + [sandbox.path("bundle2.txt")]).stdout.contains("already_installed"),
                "still sealed with the pinned first key")
        let secondID = try #require(second["id"]?.stringValue)
        #expect(try ok(["store", "provider-key", "promote"] + directory + ["--id", secondID]).stdout.contains("\"current\":true"))

        // Revoked: nothing is sealed to it, by id or by file; per-device seal refused too.
        _ = try ok(["store", "device", "revoke"] + directory + ["--id", deviceID])
        for registrationArgument in [deviceID, registrationFile] {
            let refused = try runPushSeal(["bundle", "seal"] + directory + ["--conversation", "c1", "--registration", registrationArgument])
            #expect(refused.status == 1 && refused.stderr.contains("was revoked"), "\(refused)")
        }
        let content = #"{"cid":"c1","mid":"m1","ts":1700000000,"body":"x"}"#
        let perDevice = try runPushSeal(["seal", "--store"] + directory.dropFirst() + ["--device", deviceID], stdin: Array(content.utf8))
        #expect(perDevice.status != 0 && perDevice.stderr.contains("revoked"), "\(perDevice)")
    }

    @Test func onASQLiteDirectory() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try Self.scenario(sandbox, directory: ["--dir", sandbox.path("kd")])
    }

    @Test func onAPostgreSQLURI() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try Self.scenario(sandbox, directory: ["--dir", try TestPostgreSQL.freshSchemaURI(), "--master-key-file", sandbox.path("directory.key")])
    }
}

import Foundation
import PushSealCore
import Testing
import PushSealJSON

/// `pushseal demo`, run as a new user runs it: the built executable, in a private `TMPDIR`.
@Suite struct DemoTests {
    /// Every step, in order (the JSON report must list exactly these).
    static let stepNames = [
        "create-provider-store", "create-device-store", "enroll-device",
        "provision-alice-bob", "provision-group",
        "seal-chat-message", "open-chat-message",
        "seal-long-message", "open-long-message",
        "seal-group-message", "open-group-message",
        "seal-in-flight", "rotate-alice-bob",
        "seal-after-rotation", "open-after-rotation", "open-in-flight",
        "seal-content-free", "open-content-free",
        "tampered-payload", "duplicate-delivery",
        "seal-stale", "open-stale", "removed-member-forgery",
        "forged-bundle", "expired-bundle",
        "logout-wipe", "seal-after-logout", "open-after-logout",
    ]

    /// The receiver's result each opening step must report: outcome, reason, duplicate flag.
    static let openings: [String: (outcome: String, reason: String?, duplicate: Bool)] = [
        "open-chat-message": ("decrypted", nil, false),
        "open-long-message": ("decrypted", nil, false),
        "open-group-message": ("decrypted", nil, false),
        "open-after-rotation": ("decrypted", nil, false),
        "open-in-flight": ("decrypted", nil, false),
        "open-content-free": ("decrypted", nil, false),
        "tampered-payload": ("fallback", "authentication_failed", false),
        "duplicate-delivery": ("decrypted", nil, true),
        "open-stale": ("fallback", "stale", false),
        "removed-member-forgery": ("fallback", "unknown_key", false),
        "open-after-logout": ("fallback", "unknown_key", false),
    ]

    /// The inherited environment with `TMPDIR` pointing at `directory`.
    static func environment(temporaryDirectory directory: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = directory
        return environment
    }

    static func steps(_ object: JSONObject) throws -> [JSONObject] {
        guard case let .array(values)? = object["steps"] else {
            Issue.record("no steps array")
            return []
        }
        return try values.map { try #require($0.objectValue) }
    }

    static func strings(_ value: JSONValue?) -> [String] {
        guard case let .array(values)? = value else { return [] }
        return values.compactMap(\.stringValue)
    }

    // MARK: Text

    @Test func textReportShowsEveryOutcomeAndLeavesNothingBehind() throws {
        let temporary = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(temporary) }
        let run = try runPushSeal(["demo"], environment: Self.environment(temporaryDirectory: temporary))
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty, "\(run)")
        let text = run.stdout
        for expected in [
            "1. Key stores", "2. Provisioning", "3. Notifications", "4. Fallbacks that matter",
            "decrypted · duplicate: no", "fallback · reason authentication_failed", "decrypted · duplicate: yes",
            "fallback · reason stale", "fallback · reason unknown_key",
            "truncated · body of", "trunc: true", "content-free ·", "fetch: the app downloads",
            "epoch 2 is current", "(epoch 2)", "sender Carol Diaz (user:carol)",
            "Apple sees  alert \"New message\"", "Google sees no alert", "/ 4,096 bytes",
            "✓ none in the payload bytes", "removed 3 keys", "✓ all 28 steps behaved as expected.",
            "installed epoch 1 from a key bundle", "epoch 2 arrives in band", "\"pushseal-bundle\": ", "installed before opening",
            "refused: bundle_authentication_failed", "refused: bundle_expired",
            "fallback · reason unknown_key · a member's key seals to its own devices only",
            "this device's own epoch-1 key: retired_key (retired at epoch 2's since)",
            "the device wipes its store and replaces its device key",
        ] {
            #expect(text.contains(expected), "missing \(expected)\n\(text)")
        }
        #expect(!text.contains("✗"), "\(text)")
        // The mkdtemp directory was in our TMPDIR and is gone again.
        #expect(text.contains("directory   \(temporary)/pushseal-demo."), "\(text)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
    }

    @Test func textSizesAreAlignedAgainstTheLimit() throws {
        let run = try runPushSeal(["demo"])
        #expect(run.status == 0, "\(run)")
        let sizes = run.stdout.split(separator: "\n").filter { $0.hasPrefix("      size ") }
        #expect(sizes.count == 8, "\(run.stdout)")
        for line in sizes {
            // `      size          529 / 4,096 bytes` and `      size        4,095 / 4,096 bytes`: the
            // slash is in the same column on every line.
            #expect(line.firstRange(of: " / 4,096 bytes")?.lowerBound.utf16Offset(in: line) == 23, "\(line)")
        }
    }

    // MARK: JSON

    @Test func jsonListsEveryStepWithExpectedEqualToActual() throws {
        let temporary = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(temporary) }
        let run = try runPushSeal(["demo", "--json"], environment: Self.environment(temporaryDirectory: temporary))
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty, "\(run)")
        #expect(run.stdout.filter { $0 == "\n" }.count == 1, "one document on one line")
        let object = try run.stdoutJSONObject()
        #expect(object["demo"] == .string("pushseal"))
        #expect(object["version"]?.integerValue == 1)
        #expect(object["passed"] == .bool(true))
        #expect(object["error"] == .null)
        #expect(object["kept"] == .bool(false))
        #expect(object["failedSteps"] == .array([]))
        #expect(object["maxAge"]?.integerValue == 2_678_400)
        let steps = try Self.steps(object)
        #expect(object["stepCount"]?.integerValue == Int64(steps.count))
        #expect(steps.map { $0["name"]?.stringValue ?? "?" } == Self.stepNames)

        for step in steps {
            let name = step["name"]?.stringValue ?? "?"
            let expected = try #require(step["expected"]?.objectValue, "\(name)")
            let actual = try #require(step["actual"]?.objectValue, "\(name)")
            #expect(!expected.members.isEmpty, "\(name) checks nothing")
            #expect(expected.members.map(\.name) == actual.members.map(\.name), "\(name)")
            #expect(expected == actual, "\(name)")
            #expect(step["passed"] == .bool(true), "\(name)")
            #expect(step["deviations"] == .array([]), "\(name)")
            #expect(["stores", "provisioning", "notifications", "fallbacks"].contains(step["section"]?.stringValue ?? ""), "\(name)")
        }

        // Each opening reports the receiver's result, and the check agrees with it.
        let byName = Dictionary(uniqueKeysWithValues: steps.map { ($0["name"]?.stringValue ?? "?", $0) })
        for (name, result) in Self.openings {
            let step = try #require(byName[name], "\(name)")
            let actual = try #require(step["actual"]?.objectValue)
            let received = try #require(step["received"]?.objectValue, "\(name)")
            #expect(actual["outcome"] == .string(result.outcome), "\(name)")
            #expect(actual["reason"] == (result.reason.map(JSONValue.string) ?? .null), "\(name)")
            #expect(actual["duplicate"] == .bool(result.duplicate), "\(name)")
            #expect(received["outcome"] == .string(result.outcome), "\(name)")
            #expect(received["reason"] == (result.reason.map(JSONValue.string) ?? .null), "\(name)")
            #expect(received["duplicate"] == .bool(result.duplicate), "\(name)")
        }
        #expect(byName["open-long-message"]?["actual"]?.objectValue?["truncated"] == .bool(true))
        #expect(byName["open-content-free"]?["actual"]?.objectValue?["requiresFetch"] == .bool(true))
        #expect(byName["open-after-rotation"]?["actual"]?.objectValue?["epoch"]?.integerValue == 2)
        #expect(byName["open-after-rotation"]?["actual"]?.objectValue?["keyBundle"] == .string("installed"))
        #expect(byName["open-after-rotation"]?["received"]?.objectValue?["keyBundle"] == .string("installed"))
        #expect(byName["forged-bundle"]?["actual"]?.objectValue?["reason"] == .string("bundle_authentication_failed"))
        #expect(byName["expired-bundle"]?["actual"]?.objectValue?["reason"] == .string("bundle_expired"))
        #expect(byName["open-in-flight"]?["actual"]?.objectValue?["epoch"]?.integerValue == 1)

        // Every sealed payload: within its limit, placeholder only, no plaintext.
        let seals = steps.filter { $0["name"]?.stringValue?.hasPrefix("seal-") == true }
        #expect(seals.count == 8)
        for step in seals {
            let name = step["name"]?.stringValue ?? "?"
            let sizes = try #require(step["sizes"]?.objectValue, "\(name)")
            let limited = try #require(sizes["limited"]?.integerValue)
            #expect(limited <= 4096 && sizes["limit"]?.integerValue == 4096, "\(name)")
            #expect(!Self.strings(step["plaintextChecked"]).isEmpty, "\(name)")
            #expect(step["expected"]?.objectValue?["plaintextFound"] == .array([]), "\(name)")
            #expect(step["actual"]?.objectValue?["plaintextFound"] == .array([]), "\(name)")
            let visible = try #require(step["visible"]?.objectValue, "\(name)")
            if step["transport"] == .string("apns") {
                #expect(visible["alert"]?.objectValue?["body"] == .string("New message"), "\(name)")
                #expect(visible["threadID"]?.stringValue?.utf8.count == 22, "\(name)")
            } else {
                #expect(visible["alert"] == .null && visible["threadID"] == .null, "\(name)")
            }
        }
        let paths = seals.compactMap { $0["actual"]?.objectValue?["path"]?.stringValue }
        #expect(Set(paths) == ["complete", "truncated", "content-free"])

        let directory = try #require(object["directory"]?.stringValue)
        #expect(directory.hasPrefix(temporary + "/pushseal-demo."))
        #expect(!FileManager.default.fileExists(atPath: directory))
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
    }

    // MARK: --dir

    @Test func keptDirectoryHoldsTheStoresAndPayloadFiles() throws {
        let temporary = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(temporary) }
        let directory = temporary + "/walkthrough"
        let run = try runPushSeal(["demo", "--dir", directory, "--json"])
        #expect(run.status == 0, "\(run)")
        let object = try run.stdoutJSONObject()
        #expect(object["kept"] == .bool(true))
        #expect(object["directory"] == .string(directory))

        let files = try Self.steps(object).flatMap { Self.strings($0["files"]) }
        let payloads = Set(files.filter { $0.hasPrefix("payloads/") })
        #expect(payloads.count == 10, "\(payloads)")
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: directory + "/payloads")
        #expect(Set(onDisk.map { "payloads/" + $0 }) == payloads)
        for file in payloads.sorted() {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/" + file)))
            #expect(bytes.count <= 4096, "\(file): \(bytes.count) bytes")
            let value = try JSONParser.parse(bytes)
            let payload = try #require(value.objectValue, "\(file)")
            if file.hasSuffix(".apns.json") {
                #expect(payload["aps"]?.objectValue?["mutable-content"] == .number("1"), "\(file)")
                #expect(payload["pushseal"]?.stringValue != nil, "\(file)")
            } else {
                #expect(file.hasSuffix(".fcm.json"))
                let wire = payload["message"]?.objectValue?["data"]?.objectValue?["pushseal"]?.stringValue
                #expect(wire != nil && 8 + wire!.utf8.count <= 4096, "\(file)")
            }
        }
        // Each store has its own master key file, 0600, outside its directory.
        for name in ["provider", "device"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/\(name).master.key")
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(name)")
            #expect((attributes[.size] as? NSNumber)?.intValue == 32, "\(name)")
            #expect(FileManager.default.fileExists(atPath: directory + "/\(name)/pushseal-keys.sqlite3"))
        }
    }

    @Test func keptDirectoryTextPointsAtInspect() throws {
        let temporary = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(temporary) }
        let run = try runPushSeal(["demo", "--dir", temporary])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("directory   \(temporary) (kept)"), "\(run)")
        let command = "pushseal inspect \(temporary)/payloads/01-chat-message.apns.json"
        #expect(run.stdout.contains(command), "\(run)")
        let inspect = try runPushSeal(["inspect", "\(temporary)/payloads/01-chat-message.apns.json"])
        #expect(inspect.status == 0, "\(inspect)")
    }

    @Test func nonEmptyDirectoryIsRefusedAndLeftAlone() throws {
        let temporary = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(temporary) }
        let first = try runPushSeal(["demo", "--dir", temporary])
        #expect(first.status == 0, "\(first)")
        let before = try FileManager.default.contentsOfDirectory(atPath: temporary).sorted()
        let second = try runPushSeal(["demo", "--dir", temporary])
        expectFailure(second, messagePrefix: "'\(temporary)' is not empty", hint: true)
        #expect(second.stdout.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).sorted() == before)
    }

    @Test func fileAsDirectoryIsRefused() throws {
        let temporary = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(temporary) }
        let path = temporary + "/plain-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        let run = try runPushSeal(["demo", "--dir", path])
        expectFailure(run, messagePrefix: "'\(path)' exists and is not a directory", hint: true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("x".utf8))
    }

    @Test func emptyDirectoryArgumentIsAUsageError() throws {
        let run = try runPushSeal(["demo", "--dir", ""])
        expectUsageError(run, command: "pushseal demo", message: "The value '' is invalid for '--dir <dir>': empty path")
    }

    @Test func unwritableTemporaryDirectoryIsReported() throws {
        let run = try runPushSeal(
            ["demo"], environment: Self.environment(temporaryDirectory: "/nonexistent/pushseal-demo-tests"))
        expectFailure(run, messagePrefix: "cannot write", hint: true)
        #expect(run.stdout.isEmpty)
    }
}

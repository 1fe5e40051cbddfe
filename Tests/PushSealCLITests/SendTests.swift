import Foundation
import PushSealCore
import Testing
import PushSealJSON

/// `pushseal send` against the local APNs/FCM emulator (scripts/with-push-emulator.sh; the
/// tests fail without it).
@Suite("pushseal send")
struct SendTests {
    struct Emulator {
        let directory: String
        let url: String

        init() throws {
            guard let directory = ProcessInfo.processInfo.environment["PUSHSEAL_EMULATOR_DIR"],
                let url = try? String(contentsOfFile: directory + "/url", encoding: .utf8)
            else {
                throw RunPushSealError(description: "the APNs/FCM emulator is not running: run the tests through scripts/test.sh")
            }
            self.directory = directory
            self.url = url
        }

        var apnsArguments: [String] {
            ["--apns-key-file", directory + "/apns-key.p8", "--apns-key-id", "EMUKEY1234", "--apns-team-id", "EMUTEAM123",
             "--apns-url", url, "--ca-file", directory + "/ca.pem"]
        }
        var fcmArguments: [String] {
            ["--fcm-service-account", directory + "/fcm-service-account.json",
             "--fcm-url", url + "/v1/projects/pushseal-emulator/messages:send"]
        }

        func script(_ token: String, _ steps: String) throws {
            try steps.write(toFile: directory + "/script/" + token, atomically: true, encoding: .utf8)
        }

        func bodies(_ token: String) throws -> [String] {
            try String(contentsOfFile: directory + "/requests.jsonl", encoding: .utf8).split(separator: "\n").compactMap { line in
                guard line.contains(token), let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    entry["token"] as? String == token
                else { return nil }
                return entry["body"] as? String
            }
        }
    }

    static func token() -> String { (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined() }

    static func content(_ mid: String) -> String { #"{"cid":"c1","mid":"\#(mid)","ts":1700000000,"body":"hello"}"# }

    /// The output lines as objects, by line number.
    static func results(_ run: PushSealRun) throws -> [Int: JSONObject] {
        var results: [Int: JSONObject] = [:]
        for line in run.stdout.split(separator: "\n") {
            let object = try #require(try JSONParser.parse(Array(line.utf8)).objectValue)
            let number = try #require(object["line"]?.integerValue)
            #expect(results[Int(number)] == nil, "line \(number) reported twice")
            results[Int(number)] = object
        }
        return results
    }

    @Test("Content lines for APNs, FCM and FCM-for-iOS are sealed and delivered; bad lines get their own result")
    func mixed() throws {
        let emulator = try Emulator()
        let apns = Self.token(), fcm = "fcm-" + Self.token(), ios = "fcm-" + Self.token(), dead = Self.token()
        try emulator.script(dead, #"[{"status": 410, "reason": "Unregistered"}]"#)
        let input = [
            #"{"token":"\#(apns)","content":\#(Self.content("m1"))}"#,
            #"{"token":"\#(fcm)","transport":"fcm","content":\#(Self.content("m2"))}"#,
            #"{"token":"\#(ios)","transport":"fcm-apns","content":\#(Self.content("m3"))}"#,
            "not json",
            "",
            #"{"token":"short","content":\#(Self.content("m4"))}"#,
            #"{"token":"\#(dead)","content":\#(Self.content("m5"))}"#,
            #"{"token":"\#(apns)","content":{"cid":"c1"}}"#,
        ].joined(separator: "\n") + "\n"
        let run = try runPushSeal(
            ["send", "--key", Fixtures.keyBase64URL, "--apns-topic", "com.example.chat"] + emulator.apnsArguments + emulator.fcmArguments,
            stdin: input)
        #expect(run.status == 1, "\(run)")
        let results = try Self.results(run)
        #expect(results.keys.sorted() == [1, 2, 3, 4, 6, 7, 8], "one result per non-empty line: \(run)")
        #expect(results[1]?["outcome"]?.stringValue == "delivered")
        #expect(results[1]?["transport"]?.stringValue == "apns")
        #expect(results[1]?["id"]?.stringValue?.isEmpty == false)
        #expect(results[2]?["outcome"]?.stringValue == "delivered")
        #expect(results[2]?["id"]?.stringValue?.hasPrefix("projects/pushseal-emulator/messages/") == true)
        #expect(results[3]?["outcome"]?.stringValue == "delivered")
        #expect(results[3]?["transport"]?.stringValue == "fcm-apns")
        #expect(results[4]?["outcome"]?.stringValue == "invalid")
        #expect(results[4]?["error"]?.objectValue?["code"]?.stringValue == "invalid_json")
        #expect(results[6]?["error"]?.objectValue?["code"]?.stringValue == "invalid_device_token")
        #expect(results[7]?["outcome"]?.stringValue == "token_dead")
        #expect(results[7]?["reason"]?.stringValue == "Unregistered")
        #expect(results[7]?["status"]?.integerValue == 410)
        #expect(results[8]?["error"]?.objectValue?["code"]?.stringValue == "invalid_content")
        #expect(run.stderr.contains("pushseal: note: 4 of 7 notifications not delivered (token_dead 1, invalid 3)"), "\(run)")
        // What reached the emulator opens with the key.
        let body = try #require(try emulator.bodies(apns).first)
        let opened = try runPushSeal(["open", "--key", Fixtures.keyBase64URL, "--conversation", "c1", "--now", "1700000000"], stdin: body)
        #expect(opened.status == 0, "\(opened)")
        #expect(opened.stdout.contains(#""body":"hello""#))
    }

    @Test("The output of seal --with-headers, with a token, is sent byte for byte")
    func sealedPayload() throws {
        let emulator = try Emulator()
        let sealed = try runPushSeal(
            ["seal", "--key", Fixtures.keyBase64URL, "--apns-topic", "com.example.chat", "--with-headers"], stdin: Self.content("m1"))
        #expect(sealed.status == 0, "\(sealed)")
        let object = try sealed.stdoutJSONObject()
        let headers = try #require(object["headers"]?.objectValue)
        #expect(headers.members.map(\.name) == ["apns-push-type", "apns-topic", "apns-priority", "apns-expiration"])
        #expect(headers["apns-topic"]?.stringValue == "com.example.chat")
        let payloadText = try #require(sealed.stdout.components(separatedBy: #""payload":"#).last?.dropLast(2))
        let token = Self.token()
        let line = #"{"token":"\#(token)","# + sealed.stdout.dropFirst()
        let run = try runPushSeal(["send"] + emulator.apnsArguments, stdin: line)
        #expect(run.status == 0, "\(run)")
        #expect(try Self.results(run)[1]?["outcome"]?.stringValue == "delivered")
        #expect(try emulator.bodies(token) == [String(payloadText)])
    }

    @Test("Retries and rejections are reported with the service's reason and the attempts")
    func retriesAndRejections() throws {
        let emulator = try Emulator()
        let flaky = Self.token(), rejected = Self.token(), down = Self.token()
        try emulator.script(flaky, #"[{"status": 503, "reason": "ServiceUnavailable"}, {"status": 200}]"#)
        try emulator.script(rejected, #"[{"status": 400, "reason": "BadCollapseId"}]"#)
        try emulator.script(down, #"[{"status": 500, "reason": "InternalServerError"}]"#)
        let input = [flaky, rejected, down].map { #"{"token":"\#($0)","content":\#(Self.content("m"))}"# }.joined(separator: "\n")
        let run = try runPushSeal(
            ["send", "--key", Fixtures.keyBase64URL, "--apns-topic", "com.example.chat", "--max-attempts", "2", "--backoff-ms", "10"]
                + emulator.apnsArguments,
            stdin: input)
        #expect(run.status == 1)
        let results = try Self.results(run)
        #expect(results[1]?["outcome"]?.stringValue == "delivered")
        #expect(results[1]?["attempts"]?.integerValue == 2)
        #expect(results[2]?["outcome"]?.stringValue == "rejected")
        #expect(results[2]?["reason"]?.stringValue == "BadCollapseId")
        #expect(results[2]?["attempts"]?.integerValue == 1)
        #expect(results[3]?["outcome"]?.stringValue == "retry")
        #expect(results[3]?["attempts"]?.integerValue == 2)
    }

    @Test("A wrong FCM project: configuration, one error line with a hint, one request, no token_dead, and the run stops")
    func wrongProject() throws {
        let emulator = try Emulator()
        let tokens = (0..<400).map { _ in "fcm-" + Self.token() }
        let input = tokens.map { #"{"token":"\#($0)","content":\#(Self.content("m"))}"# }.joined(separator: "\n")
        let run = try runPushSeal(
            ["send", "--key", Fixtures.keyBase64URL, "--transport", "fcm", "--max-in-flight", "1", "--ca-file", emulator.directory + "/ca.pem",
             "--fcm-service-account", emulator.directory + "/fcm-service-account.json", "--fcm-url", emulator.url + "/v1/projects/other/messages:send"],
            stdin: input)
        #expect(run.status == 1, "\(run)")
        let results = try Self.results(run)
        #expect(!results.isEmpty)
        #expect(results.values.allSatisfy { $0["outcome"]?.stringValue == "configuration" }, "\(run)")
        #expect(results[1]?["status"]?.integerValue == 404)
        #expect(results.count < tokens.count, "the run stops reading once every configured service is stopped")
        let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("pushseal: error: ") }
        #expect(errors == ["pushseal: error: FCM: stopped at line 1: NOT_FOUND: no such FCM project or send URL; check the send URL and the service account's project_id"], "\(run)")
        #expect(run.stderr.contains("\npushseal: hint: no token was reported dead; fix the configuration (--fcm-url"))
        let log = try String(contentsOfFile: emulator.directory + "/requests.jsonl", encoding: .utf8)
        #expect(tokens.filter { log.contains($0) }.count == 1, "one request, then none")
    }

    /// Runs `pushseal arguments` with `input` on standard input, standard output on a pipe and
    /// standard error on a pseudo-terminal (Python's pty module; Python runs the emulator too):
    /// the run's stdout is pushseal's, its stderr what the terminal received.
    static func runWithTerminal(_ arguments: [String], input: String) throws -> PushSealRun {
        let code = """
            import os, pty, subprocess, sys
            primary, secondary = pty.openpty()
            child = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=secondary)
            os.close(secondary)
            out, _ = child.communicate(sys.stdin.buffer.read())
            data = b""
            while True:
                try:
                    chunk = os.read(primary, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                data += chunk
            sys.stdout.buffer.write(out)
            sys.stderr.buffer.write(data)
            sys.exit(child.returncode)
            """
        let executable = try #require(PushSealExecutable.path)
        return try runPushSeal(["python3", "-c", code, executable] + arguments, stdin: Array(input.utf8), executable: "/usr/bin/env")
    }

    @Test("On a terminal: progress, then the summary and every error on lines of their own, each ending with a newline; none without one")
    func progress() throws {
        let emulator = try Emulator()
        let dead = Self.token()
        try emulator.script(dead, #"[{"status": 410, "reason": "Unregistered"}]"#)
        let input = [Self.token(), dead].map { #"{"token":"\#($0)","content":\#(Self.content("m"))}"# }.joined(separator: "\n")
        let arguments = ["send", "--key", Fixtures.keyBase64URL, "--apns-topic", "com.example.chat"] + emulator.apnsArguments
        let terminal = try Self.runWithTerminal(arguments, input: input)
        #expect(terminal.status == 1, "\(terminal)")
        #expect(terminal.stderr.contains("\rpushseal: sent 2 ("), "\(terminal)")
        #expect(terminal.stderr.hasSuffix("pushseal: note: 1 of 2 notifications not delivered (token_dead 1)\r\n"), "\(terminal)")
        #expect(terminal.stderr.contains("not delivered\r\npushseal: note:"), "the note starts a line of its own: \(terminal)")
        #expect(try Self.results(terminal).count == 2)

        // A configuration error arrives while the progress line is open: it starts a new line.
        let wrongHost = try String(contentsOfFile: emulator.directory + "/wrong-host-url", encoding: .utf8)
        let stopped = try Self.runWithTerminal(arguments.map { $0 == emulator.url ? wrongHost : $0 }, input: input)
        let lines = stopped.stderr.components(separatedBy: "\r\n")
        #expect(lines.contains { $0.hasPrefix("pushseal: error: APNs: stopped at line 1: SSL: no alternative certificate subject name") }, "\(stopped)")
        #expect(lines.contains { $0.hasPrefix("pushseal: hint: no token was reported dead") })
        #expect(stopped.stderr.hasSuffix("\r\n"))

        // Not a terminal: no progress at all.
        let piped = try runPushSeal(arguments, stdin: input)
        #expect(!piped.stderr.contains("\r") && !piped.stderr.contains("pushseal: sent"), "\(piped)")
        #expect(piped.stderr == "pushseal: note: 1 of 2 notifications not delivered (token_dead 1)\n")
    }

    @Test("--json-summary ends the output with the count of every outcome")
    func jsonSummary() throws {
        let emulator = try Emulator()
        let dead = Self.token(), invalid = Self.token()
        try emulator.script(dead, #"[{"status": 410, "reason": "Unregistered"}]"#)
        try emulator.script(invalid, #"[{"status": 400, "reason": "BadDeviceToken"}]"#)
        let input = [Self.token(), Self.token(), dead, invalid].map { #"{"token":"\#($0)","content":\#(Self.content("m"))}"# } + ["nope"]
        let run = try runPushSeal(
            ["send", "--key", Fixtures.keyBase64URL, "--apns-topic", "com.example.chat", "--json-summary"] + emulator.apnsArguments,
            stdin: input.joined(separator: "\n"))
        #expect(run.status == 1, "\(run)")
        let last = try #require(run.stdout.split(separator: "\n").last)
        #expect(last == #"{"summary":{"lines":5,"delivered":2,"validated":0,"retry":0,"token_dead":1,"token_invalid":1,"rejected":0,"configuration":0,"invalid":1,"dry_run":0}}"#)
        #expect(run.stdout.hasSuffix("}}\n"))
        #expect(run.stdout.split(separator: "\n").dropLast().allSatisfy { $0.hasPrefix(#"{"line":"#) })
    }

    /// The logged requests for `token`.
    static func logged(_ emulator: Emulator, _ token: String) throws -> [[String: Any]] {
        try String(contentsOfFile: emulator.directory + "/requests.jsonl", encoding: .utf8).split(separator: "\n").compactMap { line in
            guard line.contains(token), let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                entry["token"] as? String == token
            else { return nil }
            return entry
        }
    }

    @Test("Per-message headers on content lines reach the service; a bad one fails its own line and the run goes on")
    func perMessageHeaders() throws {
        let emulator = try Emulator()
        let apns = Self.token(), android = "fcm-" + Self.token(), ios = "fcm-" + Self.token(), sealed = Self.token()
        let content = Self.content("m")
        let input = [
            #"{"token":"\#(apns)","content":\#(content),"headers":{"apns-priority":"5","apns-expiration":1700003600,"apns-collapse-id":"c-9","apns-topic":"com.example.other","apns-push-type":"alert"}}"#,
            #"{"token":"\#(android)","transport":"fcm","content":\#(content),"headers":{"android.priority":"normal","android.ttl":"3600s"}}"#,
            #"{"token":"\#(ios)","transport":"fcm-apns","content":\#(content),"headers":{"apns-priority":5,"apns-expiration":"0"}}"#,
            #"{"token":"\#(Self.token())","content":\#(content),"headers":{"apns-priority":"7"}}"#,
            #"{"token":"\#(Self.token())","content":\#(content),"headers":{"apns-push-type":"background"}}"#,
            #"{"token":"\#(Self.token())","content":\#(content),"headers":{"android.ttl":"60s"}}"#,
            #"{"token":"fcm-x","transport":"fcm","content":\#(content),"headers":{"android.ttl":"29d"}}"#,
            #"{"token":"\#(Self.token())","content":\#(content),"headers":{"apns-prio":"5"}}"#,
            #"{"token":"\#(sealed)","payload":{"aps":{}},"headers":{"apns-expiration":"soon"}}"#,
        ].joined(separator: "\n")
        let run = try runPushSeal(
            ["send", "--key", Fixtures.keyBase64URL, "--apns-topic", "com.example.chat"] + emulator.apnsArguments + emulator.fcmArguments, stdin: input)
        let results = try Self.results(run)
        #expect(results.keys.sorted() == Array(1...9), "\(run)")
        for line in 1...3 { #expect(results[line]?["outcome"]?.stringValue == "delivered", "\(line): \(run)") }
        let direct = try #require(try Self.logged(emulator, apns).first)
        #expect(direct["priority"] as? String == "5")
        #expect(direct["expiration"] as? String == "1700003600")
        #expect(direct["collapse"] as? String == "c-9")
        #expect(direct["topic"] as? String == "com.example.other")
        let androidBody = try #require(try emulator.bodies(android).first)
        #expect(androidBody.contains(#""android":{"priority":"normal","ttl":"3600s"}"#), "\(androidBody)")
        let iosBody = try #require(try emulator.bodies(ios).first)
        #expect(iosBody.contains(#""apns-priority":"5","apns-expiration":"0""#), "\(iosBody)")
        let messages = (4...9).map { results[$0]?["error"]?.objectValue?["message"]?.stringValue ?? "" }
        #expect(messages[0] == "invalid option apns-priority: must be 10 (now), 5 (power-aware) or 1 (lowest)", "\(messages)")
        #expect(messages[1].hasPrefix("invalid option apns-push-type: must be alert for a sealed notification"))
        #expect(messages[2] == "invalid option android.ttl: is for FCM messages to Android devices (transport fcm)")
        #expect(messages[3].hasPrefix("invalid option android.ttl: must be 0 to 2419200 seconds"))
        #expect(messages[4].hasPrefix("invalid option apns-prio: unknown header"))
        #expect(messages[5] == "invalid option apns-expiration: must be a UNIX time in seconds (0: try once, never store)")
        #expect((4...9).allSatisfy { results[$0]?["outcome"]?.stringValue == "invalid" })
        #expect(try Self.logged(emulator, sealed).isEmpty)
    }

    @Test("seal --with-headers prints a wrapper's per-message headers, and send takes them as they are")
    func sealWithHeaders() throws {
        let emulator = try Emulator()
        let wrapper = #"{"content":\#(Self.content("m1")),"headers":{"apns-priority":"5","apns-collapse-id":"k-1","apns-expiration":"1700003600"}}"#
        let sealed = try runPushSeal(["seal", "--key", Fixtures.keyBase64URL, "--apns-topic", "com.example.chat", "--with-headers"], stdin: wrapper)
        #expect(sealed.status == 0, "\(sealed)")
        let headers = try #require(try sealed.stdoutJSONObject()["headers"]?.objectValue)
        #expect(headers.members.map(\.name) == ["apns-push-type", "apns-topic", "apns-priority", "apns-expiration", "apns-collapse-id"])
        #expect(headers["apns-priority"]?.stringValue == "5")
        #expect(headers["apns-expiration"]?.stringValue == "1700003600")
        #expect(headers["apns-collapse-id"]?.stringValue == "k-1")
        let token = Self.token()
        let run = try runPushSeal(["send"] + emulator.apnsArguments, stdin: #"{"token":"\#(token)","# + sealed.stdout.dropFirst())
        #expect(try Self.results(run)[1]?["outcome"]?.stringValue == "delivered", "\(run)")
        let logged = try #require(try Self.logged(emulator, token).first)
        #expect(logged["priority"] as? String == "5" && logged["collapse"] as? String == "k-1")

        let bad = try runPushSeal(
            ["seal", "--key", Fixtures.keyBase64URL, "--apns-topic", "com.example.chat", "--with-headers"],
            stdin: #"{"content":\#(Self.content("m1")),"headers":{"apns-priority":"high"}}"#)
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("pushseal: error: invalid option apns-priority: must be 10 (now), 5 (power-aware) or 1 (lowest)"), "\(bad)")
    }

    @Test("--dry-run checks and seals every line and prints its request; nothing is sent, no token printed")
    func dryRun() throws {
        let emulator = try Emulator()
        let apns = Self.token(), fcm = "fcm-" + Self.token()
        let input = [
            #"{"token":"\#(apns)","content":\#(Self.content("m1")),"headers":{"apns-priority":"5","apns-collapse-id":"k"}}"#,
            #"{"token":"\#(fcm)","transport":"fcm","content":\#(Self.content("m2"))}"#,
        ].joined(separator: "\n")
        let arguments = ["send", "--key", Fixtures.keyBase64URL, "--apns-topic", "com.example.chat", "--dry-run"] + emulator.apnsArguments + emulator.fcmArguments
        let run = try runPushSeal(arguments, stdin: input)
        #expect(run.status == 0, "\(run)")
        let results = try Self.results(run)
        #expect(results[1]?["outcome"]?.stringValue == "dry_run")
        #expect(results[1]?["url"]?.stringValue == emulator.url + "/3/device/" + apns)
        let headers = try #require(results[1]?["headers"]?.objectValue)
        #expect(headers.members.map(\.name) == ["content-type", "apns-push-type", "apns-topic", "apns-priority", "apns-expiration", "apns-collapse-id"])
        #expect(headers["apns-priority"]?.stringValue == "5")
        #expect((results[1]?["bytes"]?.integerValue ?? 0) > 100)
        #expect(results[2]?["outcome"]?.stringValue == "dry_run")
        #expect(results[2]?["url"]?.stringValue == emulator.url + "/v1/projects/pushseal-emulator/messages:send")
        #expect(!run.stdout.lowercased().contains("authorization") && !run.stdout.contains("eyJ") && !run.stdout.contains("ya29."))
        #expect(try Self.logged(emulator, apns).isEmpty && Self.logged(emulator, fcm).isEmpty, "a dry run sends nothing")
        // A bad line is still its own invalid result, and the exit status says so.
        let bad = try runPushSeal(arguments, stdin: #"{"token":"\#(apns)","content":\#(Self.content("m1")),"headers":{"apns-priority":"9"}}"#)
        #expect(bad.status == 1)
        #expect(try Self.results(bad)[1]?["outcome"]?.stringValue == "invalid")
    }

    @Test("--validate-only: FCM checks each message (validate_only) and delivers none; APNs lines are a dry run")
    func validateOnly() throws {
        let emulator = try Emulator()
        let apns = Self.token(), fcm = "fcm-" + Self.token()
        let input = [
            #"{"token":"\#(apns)","content":\#(Self.content("m1"))}"#,
            #"{"token":"\#(fcm)","transport":"fcm","content":\#(Self.content("m2"))}"#,
        ].joined(separator: "\n")
        let run = try runPushSeal(
            ["send", "--key", Fixtures.keyBase64URL, "--apns-topic", "com.example.chat", "--validate-only"] + emulator.apnsArguments + emulator.fcmArguments,
            stdin: input)
        #expect(run.status == 0, "\(run)")
        let results = try Self.results(run)
        #expect(results[1]?["outcome"]?.stringValue == "dry_run")
        #expect(results[2]?["outcome"]?.stringValue == "validated")
        #expect(results[2]?["id"]?.stringValue == "projects/pushseal-emulator/messages/fake_message_id")
        #expect(try Self.logged(emulator, apns).isEmpty)
        let body = try #require(try emulator.bodies(fcm).first)
        #expect(body.hasPrefix(#"{"validate_only":true,"message":{"#), "\(body)")
    }

    @Test("Bad credentials are clear errors that print no secret", arguments: ["garbage-p8", "wrong-p8", "missing-field", "short-team-id"])
    func badCredentials(kind: String) throws {
        let emulator = try Emulator()
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        var arguments = ["send", "--key", Fixtures.keyBase64URL, "--apns-topic", "com.example.chat"]
        switch kind {
        case "garbage-p8":
            try "-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n".write(toFile: directory + "/k.p8", atomically: true, encoding: .utf8)
            arguments += emulator.apnsArguments.map { $0.hasSuffix("apns-key.p8") ? directory + "/k.p8" : $0 }
        case "wrong-p8":
            arguments += emulator.apnsArguments.map { $0.hasSuffix("apns-key.p8") ? emulator.directory + "/apns-wrong-key.p8" : $0 }
        case "short-team-id":
            arguments += emulator.apnsArguments.map { $0 == "EMUTEAM123" ? "EMUTEAM" : $0 }
        default:
            var account = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: emulator.directory + "/fcm-service-account.json"))) as! [String: Any]
            account.removeValue(forKey: "client_email")
            try JSONSerialization.data(withJSONObject: account).write(to: URL(fileURLWithPath: directory + "/sa.json"))
            arguments += ["--transport", "fcm", "--fcm-service-account", directory + "/sa.json", "--ca-file", emulator.directory + "/ca.pem"]
        }
        let run = try runPushSeal(arguments, stdin: #"{"token":"\#(Self.token())","content":\#(Self.content("m"))}"#)
        #expect(run.status == 1, "\(run)")
        switch kind {
        case "garbage-p8":
            #expect(run.stderr.hasPrefix("pushseal: error: invalid APNs signing key: not a PEM private key"), "\(run)")
            #expect(run.stderr.contains("\npushseal: hint: "))
            #expect(run.stdout.isEmpty)
        case "wrong-p8":
            let result = try #require(try Self.results(run)[1])
            #expect(result["outcome"]?.stringValue == "configuration")
            #expect(result["reason"]?.stringValue?.hasPrefix("InvalidProviderToken: APNs refused the provider token") == true)
            #expect(run.stderr.contains("pushseal: error: APNs: stopped at line 1: InvalidProviderToken"), "\(run)")
            #expect(run.stderr.contains("\npushseal: hint: no token was reported dead"))
        case "short-team-id":
            #expect(run.stderr.hasPrefix("pushseal: error: invalid APNs team id: must be 10 characters (Apple's ids are 10 letters and digits), not 7"), "\(run)")
            #expect(run.stderr.contains("\npushseal: hint: "))
            #expect(run.stdout.isEmpty)
        default:
            #expect(run.stderr.hasPrefix("pushseal: error: invalid FCM service account: client_email is missing"), "\(run)")
        }
        // Key material (the .p8's and the service account's base64 lines), JWTs and access tokens.
        let p8 = try String(contentsOfFile: emulator.directory + "/apns-key.p8", encoding: .utf8).split(separator: "\n")[1]
        let account = try String(contentsOfFile: emulator.directory + "/fcm-service-account.json", encoding: .utf8)
        let rsaLine = try #require(account.components(separatedBy: "\\n").dropFirst().first)
        for secret in [String(p8), rsaLine, "not base64", "eyJ", "ya29."] {
            #expect(!run.stdout.contains(secret) && !run.stderr.contains(secret))
        }
    }

    @Test("Usage errors exit 64 before anything is read", arguments: [
        ["send"],
        ["send", "--apns-key-file", "k.p8"],
        ["send", "--apns-key-id", "ABC"],
        ["send", "--fcm-url", "https://x"],
        ["send", "--fcm-service-account", "sa.json", "--max-in-flight", "0"],
        ["send", "--fcm-service-account", "sa.json", "--transport", "web"],
        ["send", "--apns-key-file", "k.p8", "--apns-key-id", "EMUKEY1234", "--apns-team-id", "EMUTEAM123", "--validate-only"],
        ["send", "--fcm-service-account", "sa.json", "--validate-only", "--dry-run"],
    ])
    func usage(arguments: [String]) throws {
        let run = try runPushSeal(arguments, stdin: "")
        #expect(run.status == 64, "\(run)")
        #expect(run.stdout.isEmpty)
    }

    @Test("seal --transport fcm-apns: an FCM message whose apns payload opens like an APNs payload")
    func fcmForIOS() throws {
        let sealed = try runPushSeal(
            ["seal", "--key", Fixtures.keyBase64URL, "--transport", "fcm-apns", "--fcm-token", "t1", "--apns-topic", "com.example.chat"],
            stdin: Self.content("m1"))
        #expect(sealed.status == 0, "\(sealed)")
        let message = try #require(try sealed.stdoutJSONObject()["message"]?.objectValue)
        #expect(message.members.map(\.name) == ["token", "apns"])
        let apns = try #require(message["apns"]?.objectValue)
        #expect(apns["headers"]?.objectValue?["apns-push-type"]?.stringValue == "alert")
        #expect(apns["headers"]?.objectValue?["apns-topic"]?.stringValue == "com.example.chat")
        var writer = JSONWriter()
        writer.append(try #require(apns["payload"]))
        let opened = try runPushSeal(["open", "--key", Fixtures.keyBase64URL, "--conversation", "c1", "--now", "1700000000"], stdin: writer.bytes)
        #expect(opened.status == 0, "\(opened)")
        #expect(opened.stdout.contains(#""outcome":"decrypted""#))
    }
}

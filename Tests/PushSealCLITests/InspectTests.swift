import Foundation
@_spi(Vectors) import PushSealCore
import Testing
import PushSealJSON

@Suite struct InspectTests {
    static let envelope = Fixtures.envelope(paddedLength: 128)
    static let wire = envelope.wire
    static let apns = Fixtures.apnsPayload(wire: wire)

    /// The value of a `label   value` row of the text report.
    static func row(_ label: String, in text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix(label + " ") {
            return String(line.dropFirst(label.count)).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    // MARK: Valid payloads

    @Test func apnsPayloadTextReport() throws {
        let run = try runPushSeal(["inspect"], stdin: Self.apns)
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty)
        let text = run.stdout
        #expect(Self.row("payload", in: text) == "APNs payload, \(Self.apns.utf8.count) bytes")
        #expect(Self.row("envelope", in: text)?.hasPrefix("valid, version 1") == true, "\(text)")
        #expect(Self.row("key id", in: text) == Fixtures.key.id.base64URL)
        #expect(Self.row("salt", in: text) == Base64URL.encode(Fixtures.salt))
        #expect(Self.row("wire", in: text) == "247 characters")
        #expect(Self.row("envelope size", in: text) == "185 bytes: header 41 + ciphertext 128 + tag 16")
        #expect(Self.row("padded content", in: text) == "128 bytes (content at most 127 bytes)")
        #expect(Self.row("APNs", in: text) == "\(Self.apns.utf8.count) of 4096 bytes, fits (whole JSON body)")
        #expect(Self.row("FCM", in: text) == "255 of 4096 bytes, fits (at least: a data map holding only \"pushseal\")")
    }

    @Test func apnsPayloadJSONReport() throws {
        let run = try runPushSeal(["inspect", "--json"], stdin: Self.apns)
        #expect(run.status == 0, "\(run)")
        let object = try run.stdoutJSONObject()
        #expect(object.members.map(\.name) == [
            "valid", "reason", "problem", "form", "keyBundle", "payloadBytes", "wireLength", "envelopeBytes", "version", "kid", "salt",
            "headerBytes", "ciphertextBytes", "tagBytes", "paddedBytes", "maxContentBytes", "apns", "fcm",
        ])
        #expect(object["valid"] == .bool(true))
        #expect(object["reason"] == .null)
        #expect(object["problem"] == .null)
        #expect(object["form"] == .string("apns"))
        #expect(object["payloadBytes"]?.integerValue == Int64(Self.apns.utf8.count))
        #expect(object["wireLength"]?.integerValue == 247)
        #expect(object["envelopeBytes"]?.integerValue == 185)
        #expect(object["version"]?.integerValue == 1)
        #expect(object["kid"] == .string(Fixtures.key.id.base64URL))
        #expect(object["salt"] == .string(Base64URL.encode(Fixtures.salt)))
        #expect(object["headerBytes"]?.integerValue == 41)
        #expect(object["ciphertextBytes"]?.integerValue == 128)
        #expect(object["tagBytes"]?.integerValue == 16)
        #expect(object["paddedBytes"]?.integerValue == 128)
        #expect(object["maxContentBytes"]?.integerValue == 127)
        let apns = try #require(object["apns"]?.objectValue)
        #expect(apns["bytes"]?.integerValue == Int64(Self.apns.utf8.count))
        #expect(apns["limit"]?.integerValue == 4096)
        #expect(apns["fits"] == .bool(true))
        #expect(apns["basis"] == .string("payload"))
        let fcm = try #require(object["fcm"]?.objectValue)
        #expect(fcm["bytes"]?.integerValue == 255)
        #expect(fcm["basis"] == .string("minimum"))
    }

    @Test func fcmMessage() throws {
        let payload = Fixtures.fcmMessage(wire: Self.wire)
        let object = try runPushSeal(["inspect", "--json"], stdin: payload).stdoutJSONObject()
        #expect(object["valid"] == .bool(true))
        #expect(object["form"] == .string("fcm-message"))
        #expect(object["payloadBytes"]?.integerValue == Int64(payload.utf8.count))
        let fcm = try #require(object["fcm"]?.objectValue)
        #expect(fcm["bytes"]?.integerValue == Int64("pushseal".count + 247 + "v".count + "1".count))
        #expect(fcm["basis"] == .string("payload"))
        let apns = try #require(object["apns"]?.objectValue)
        let smallestAPNs = #"{"aps":{"mutable-content":1},"pushseal":""# + Self.wire + #""}"#
        #expect(apns["bytes"]?.integerValue == Int64(smallestAPNs.utf8.count))
        #expect(apns["basis"] == .string("minimum"))
    }

    @Test func fcmDataMap() throws {
        let payload = #"{"pushseal":""# + Self.wire + #"","type":"msg"}"#
        let object = try runPushSeal(["inspect", "--json"], stdin: payload).stdoutJSONObject()
        #expect(object["valid"] == .bool(true))
        #expect(object["form"] == .string("fcm-data"))
        #expect(object["fcm"]?.objectValue?["bytes"]?.integerValue == Int64(8 + 247 + 4 + 3))
    }

    @Test(arguments: [wire, wire + "\n", "  \(wire)\r\n", "\"\(wire)\""])
    func bareWireString(input: String) throws {
        let run = try runPushSeal(["inspect", "--json"], stdin: input)
        #expect(run.status == 0, "\(run)")
        let object = try run.stdoutJSONObject()
        #expect(object["form"] == .string("wire"))
        #expect(object["kid"] == .string(Fixtures.key.id.base64URL))
        #expect(object["wireLength"]?.integerValue == 247)
    }

    @Test func fileArgumentAndDashReadTheSameAsStandardInput() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = directory + "/payload.json"
        try Data(Self.apns.utf8).write(to: URL(fileURLWithPath: path))
        let fromFile = try runPushSeal(["inspect", path])
        let fromStandardInput = try runPushSeal(["inspect"], stdin: Self.apns)
        let fromDash = try runPushSeal(["inspect", "-"], stdin: Self.apns)
        #expect(fromFile.status == 0, "\(fromFile)")
        #expect(fromFile.stdout == fromStandardInput.stdout)
        #expect(fromDash.stdout == fromStandardInput.stdout)
    }

    @Test func payloadOverTheLimitsIsReportedButValid() throws {
        let big = Fixtures.envelope(paddedLength: 4000)
        let payload = Fixtures.apnsPayload(wire: big.wire)
        let run = try runPushSeal(["inspect"], stdin: payload)
        #expect(run.status == 0, "\(run)")
        #expect(Self.row("APNs", in: run.stdout) == "\(payload.utf8.count) of 4096 bytes, TOO LARGE (whole JSON body)")
        let object = try runPushSeal(["inspect", "--json"], stdin: payload).stdoutJSONObject()
        #expect(object["apns"]?.objectValue?["fits"] == .bool(false))
        #expect(object["fcm"]?.objectValue?["fits"] == .bool(false))
        #expect(object["envelopeBytes"]?.integerValue == 4057)
    }

    @Test func smallestValidEnvelope() throws {
        let smallest = Fixtures.envelope(paddedLength: Fixtures.content.encodedByteCount + 1)
        let object = try runPushSeal(["inspect", "--json"], stdin: smallest.wire).stdoutJSONObject()
        #expect(object["valid"] == .bool(true))
        #expect(object["maxContentBytes"]?.integerValue == Int64(Fixtures.content.encodedByteCount))
    }

    // MARK: Invalid payloads

    struct BadPayload: CustomTestStringConvertible, Sendable {
        let name: String
        let input: [UInt8]
        let reason: String
        let problem: String
        var testDescription: String { name }

        init(_ name: String, _ input: String, _ reason: String, _ problem: String) {
            self.init(name, Array(input.utf8), reason, problem)
        }

        init(_ name: String, _ input: [UInt8], _ reason: String, _ problem: String) {
            self.name = name
            self.input = input
            self.reason = reason
            self.problem = problem
        }
    }

    static let envelopeBytes = envelope.bytes
    static let badPayloads: [BadPayload] = [
        BadPayload("padding character", Fixtures.apnsPayload(wire: wire + "=="), "malformed_envelope",
                   "malformed envelope: not strict base64url: padding character '='"),
        BadPayload("standard base64 alphabet", Fixtures.apnsPayload(wire: "+" + wire.dropFirst()), "malformed_envelope",
                   "malformed envelope: not strict base64url: character at offset 0 is outside the base64url alphabet"),
        BadPayload("impossible length", "AAAAA", "malformed_envelope",
                   "malformed envelope: not strict base64url: length 5 is not a possible base64url length"),
        BadPayload("non-zero trailing bits", "AB", "malformed_envelope",
                   "malformed envelope: not strict base64url: non-zero trailing bits"),
        BadPayload("not JSON", "{\"aps\":", "not_sealed", "not a PushSeal payload: not strict JSON: unexpected end of input"),
        BadPayload("JSON with a comment", "{\"pushseal\":\"\(wire)\"} // x", "not_sealed", "not a PushSeal payload: not strict JSON: unexpected data"),
        BadPayload("JSON array", "[\"\(wire)\"]", "not_sealed", "not a PushSeal payload: the JSON value is not an object"),
        BadPayload("only whitespace", " \n\t ", "not_sealed", "not a PushSeal payload: the input is only whitespace"),
        BadPayload("binary", [0xFF, 0xFE, 0x00, 0x01], "not_sealed", "not a PushSeal payload: the input is neither JSON nor text"),
        BadPayload("APNs without pushseal", #"{"aps":{"alert":"hi"}}"#, "not_sealed",
                   "not a PushSeal payload: no top-level \"pushseal\" member"),
        BadPayload("FCM message without data", #"{"message":{"token":"t","notification":{"title":"hi"}}}"#, "not_sealed",
                   "not a PushSeal payload: no message.data.pushseal member"),
        BadPayload("pushseal not a string", #"{"aps":{},"pushseal":42}"#, "malformed_envelope",
                   "the \"pushseal\" member is not a string"),
        BadPayload("duplicate pushseal", #"{"aps":{},"pushseal":"\#(wire)","pushseal":"\#(wire)"}"#, "malformed_envelope",
                   "the \"pushseal\" member appears more than once"),
        BadPayload("empty envelope", #"{"aps":{},"pushseal":""}"#, "malformed_envelope", "malformed envelope: empty envelope"),
        BadPayload("envelope too short", Fixtures.wire(Array(envelopeBytes.prefix(57))), "malformed_envelope",
                   "malformed envelope: envelope is 57 bytes; version 1 needs 58 to 4096"),
        BadPayload("wire string too long", Fixtures.wire([1] + [UInt8](repeating: 7, count: 4096)), "malformed_envelope",
                   "malformed envelope: wire string is 5463 characters, longer than the 5462"),
        BadPayload("unsupported version", Fixtures.wire([2] + envelopeBytes.dropFirst()), "unsupported_version",
                   "unsupported envelope version 2"),
        BadPayload("unsupported version before length", Fixtures.wire([0]), "unsupported_version",
                   "unsupported envelope version 0"),
    ]

    @Test(arguments: badPayloads)
    func invalidPayloadIsExplainedAndExits1(bad: BadPayload) throws {
        let run = try runPushSeal(["inspect"], stdin: bad.input)
        expectFailure(run, messagePrefix: bad.problem, hint: true)
        #expect(Self.row("envelope", in: run.stdout) == "invalid: \(bad.reason)", "\(run)")
        #expect(Self.row("problem", in: run.stdout)?.hasPrefix(bad.problem) == true, "\(run)")

        let json = try runPushSeal(["inspect", "--json"], stdin: bad.input)
        #expect(json.status == 1)
        let object = try json.stdoutJSONObject()
        #expect(object["valid"] == .bool(false))
        #expect(object["reason"] == .string(bad.reason))
        #expect(object["problem"]?.stringValue?.hasPrefix(bad.problem) == true, "\(json)")
        #expect(object["ciphertextBytes"] == .null)
    }

    @Test func headerFieldsOfAnInvalidEnvelopeAreStillShown() throws {
        let short = Fixtures.wire(Array(Self.envelopeBytes.prefix(57)))
        let object = try runPushSeal(["inspect", "--json"], stdin: short).stdoutJSONObject()
        #expect(object["envelopeBytes"]?.integerValue == 57)
        #expect(object["version"]?.integerValue == 1)
        #expect(object["kid"] == .string(Fixtures.key.id.base64URL))
        #expect(object["salt"] == .string(Base64URL.encode(Fixtures.salt)))
        let text = try runPushSeal(["inspect"], stdin: short).stdout
        #expect(Self.row("key id", in: text) == "\(Fixtures.key.id.base64URL) (from the header)")
        #expect(Self.row("decoded", in: text) == "57 bytes")
    }

    @Test func hintsMatchTheProblem() throws {
        let base64 = try runPushSeal(["inspect"], stdin: Fixtures.apnsPayload(wire: Self.wire + "="))
        #expect(base64.stderrLines.contains { $0.hasPrefix("pushseal: hint: wire strings are base64url without padding") }, "\(base64)")
        let version = try runPushSeal(["inspect"], stdin: Fixtures.wire([2] + Self.envelopeBytes.dropFirst()))
        #expect(version.stderrLines.contains { $0.hasPrefix("pushseal: hint: this build reads envelope version 1 only") }, "\(version)")
        let short = try runPushSeal(["inspect"], stdin: Fixtures.wire(Array(Self.envelopeBytes.prefix(57))))
        #expect(short.stderrLines.contains { $0.contains("was the string cut short?") }, "\(short)")
    }

    // MARK: Input errors

    @Test func emptyStandardInput() throws {
        let run = try runPushSeal(["inspect"])
        expectFailure(run, messagePrefix: "no payload on standard input", hint: true)
        #expect(run.stdout.isEmpty)
    }

    @Test func missingFile() throws {
        let run = try runPushSeal(["inspect", "no-such-payload.json"])
        expectFailure(run, messagePrefix: "cannot open 'no-such-payload.json': No such file or directory", hint: true)
        #expect(run.stdout.isEmpty)
    }

    @Test func directoryInsteadOfAFile() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        expectFailure(try runPushSeal(["inspect", directory]), messagePrefix: "'\(directory)' is a directory, not a file")
    }

    @Test func emptyFile() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = directory + "/empty.json"
        try Data().write(to: URL(fileURLWithPath: path))
        expectFailure(try runPushSeal(["inspect", path]), messagePrefix: "'\(path)' is empty; expected a payload")
    }

    @Test func standardInputOverTheLimit() throws {
        let huge = [UInt8](repeating: UInt8(ascii: "A"), count: (16 << 20) + 1)
        let run = try runPushSeal(["inspect"], stdin: huge)
        expectFailure(run, messagePrefix: "standard input is larger than 16 MiB", hint: true)
    }
}

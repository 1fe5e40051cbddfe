import Foundation
@testable import PushSealCommands
import PushSealCLIKit
@_spi(Vectors) import PushSealCore
import Testing
import PushSealJSON

/// The demo's building blocks in process: deviations make it fail loudly, the plaintext search
/// finds leaks, formatting, and the temporary directory's removal.
@Suite struct DemoReportTests {
    static let workspace = DemoWorkspace(root: "/tmp/pushseal-demo.test", isTemporary: true)

    /// A demo whose recorded steps are `steps` (nothing is run).
    static func demo(_ steps: [DemoStep]) -> DemoRun {
        var demo = DemoRun(workspace: workspace, now: 1_700_000_000)
        demo.steps = steps
        return demo
    }

    static func passingStep() -> DemoStep {
        var step = DemoStep("open-chat-message", section: .notifications, title: "Open the chat message")
        step.expect("outcome", "decrypted", "decrypted")
        return step
    }

    static func deviatingStep() -> DemoStep {
        var step = DemoStep("open-stale", section: .fallbacks, title: "Open the stale notification")
        step.expect("outcome", "fallback", "fallback")
        step.expect("reason", "stale", "authentication_failed")
        step.expect("duplicate", false, false)
        return step
    }

    // MARK: Deviations

    @Test func aStepPassesOnlyWhenEveryFactMatchesAndNothingElseWentWrong() {
        #expect(Self.passingStep().passed)
        #expect(!Self.deviatingStep().passed)
        #expect(Self.deviatingStep().deviations == [#"reason: expected "stale", got "authentication_failed""#])
        var problem = Self.passingStep()
        problem.problems.append("the payload is not a JSON object")
        #expect(!problem.passed)
        #expect(problem.deviations == ["the payload is not a JSON object"])
    }

    @Test func everyStepPassingEndsWithoutError() {
        let (report, error) = DemoCommand.conclude(Self.demo([Self.passingStep()]), stoppedBy: nil, json: false)
        #expect(error == nil)
        #expect(report.contains("✓ all 1 steps behaved as expected."))
    }

    @Test func aDeviationFailsTheDemoAndNamesTheDifference() throws {
        let demo = Self.demo([Self.passingStep(), Self.deviatingStep()])
        let (text, error) = DemoCommand.conclude(demo, stoppedBy: nil, json: false)
        guard case let .failure(diagnostic)? = error else {
            Issue.record("expected a failure, got \(String(describing: error))")
            return
        }
        #expect(diagnostic.exitCode == .failure)
        #expect(diagnostic.message == "1 of 2 demo steps did not behave as expected")
        #expect(diagnostic.hints == [#"open-stale: reason: expected "stale", got "authentication_failed""#])
        #expect(text.contains("  ✗ Open the stale notification\n"))
        #expect(text.contains(#"      ✗ reason: expected "stale", got "authentication_failed""#))
        #expect(text.contains("✗ 1 of 2 steps did not behave as expected: open-stale"))
        #expect(!text.contains("✓ all"))
        #expect(!text.contains("Apple and Google saw"))

        let (json, jsonError) = DemoCommand.conclude(demo, stoppedBy: nil, json: true)
        #expect(jsonError == error)
        let object = try #require(try JSONParser.parse(Array(json.utf8.dropLast())).objectValue)
        #expect(object["passed"] == .bool(false))
        #expect(object["failedSteps"] == .array([.string("open-stale")]))
        guard case let .array(steps)? = object["steps"], let step = steps.last?.objectValue else {
            Issue.record("no steps")
            return
        }
        #expect(step["passed"] == .bool(false))
        #expect(step["expected"]?.objectValue?["reason"] == .string("stale"))
        #expect(step["actual"]?.objectValue?["reason"] == .string("authentication_failed"))
        #expect(step["deviations"] == .array([.string(#"reason: expected "stale", got "authentication_failed""#)]))
    }

    @Test func aDemoThatStoppedReportsTheStepsSoFarAndTheCause() throws {
        let stopped = CLIError.failure("demo stopped while creating the store 'device': locked")
        let demo = Self.demo([Self.passingStep()])
        let (text, error) = DemoCommand.conclude(demo, stoppedBy: stopped, json: false)
        #expect(error == stopped)
        #expect(text.contains("✓ Open the chat message"))
        #expect(text.contains("✗ stopped after 1 steps: demo stopped while creating the store 'device': locked"))
        let (json, _) = DemoCommand.conclude(demo, stoppedBy: stopped, json: true)
        let object = try #require(try JSONParser.parse(Array(json.utf8.dropLast())).objectValue)
        #expect(object["passed"] == .bool(false))
        #expect(object["error"] == .string("demo stopped while creating the store 'device': locked"))
    }

    // MARK: What Apple and Google see

    static let key = try! ConversationKey(rawBytes: Array(1...32))
    static let content = NotificationContent(
        conversationID: "chat:alice+bob", messageID: "msg:1", sentAt: 1_700_000_000,
        title: "Alice Martin", body: "Are we still on for dinner at 7? Table by the window.")
    static let plaintext: [(field: String, text: String)] = [
        ("cid", content.conversationID), ("mid", content.messageID), ("title", content.title!), ("body", content.body!),
    ]

    static func apns(alert: String, wire: String) -> [UInt8] {
        Array(#"{"aps":{"alert":{"body":"\#(alert)"},"mutable-content":1,"thread-id":"\#(key.opaqueThreadID)"},"pushseal":"\#(wire)"}"#.utf8)
    }

    static var sealedWire: String {
        Envelope.seal(content: try! content.encoded(), with: key, paddedLength: 256, salt: Array(0xA0...0xB7)).wire
    }

    @Test func aSealedPayloadShowsOnlyThePlaceholder() {
        let exposure = DemoExposure.examine(Self.apns(alert: "New message", wire: Self.sealedWire), transport: .apns, plaintext: Self.plaintext)
        #expect(exposure.plaintextFound == [])
        #expect(exposure.problems == [])
        #expect(exposure.alertBody == "New message")
        #expect(exposure.alertTitle == nil)
        #expect(exposure.threadID == Self.key.opaqueThreadID)
        #expect(exposure.envelope?.keyID == Self.key.id)
        #expect(exposure.needleCount > Self.plaintext.count)
    }

    @Test func plaintextInTheVisibleAlertIsFound() {
        let exposure = DemoExposure.examine(
            Self.apns(alert: "Alice Martin: Are we still on for dinner at 7? Table by the window.", wire: Self.sealedWire),
            transport: .apns, plaintext: Self.plaintext)
        #expect(exposure.plaintextFound == ["title", "body"])
    }

    @Test func aFragmentOfALongTextIsFound() {
        // Only "dinner at 7? Table" of the body leaks: caught by the fragment search.
        let exposure = DemoExposure.examine(
            Self.apns(alert: "about dinner at 7? Table", wire: Self.sealedWire), transport: .apns, plaintext: Self.plaintext)
        #expect(exposure.plaintextFound == ["body"])
    }

    @Test func plaintextMerelyEncodedInTheEnvelopeIsFound() throws {
        // An "envelope" whose ciphertext is the content itself: invisible in the base64url wire,
        // but the decoded envelope bytes give it away.
        let header = [Envelope.version] + Self.key.id.bytes + [UInt8](repeating: 0xA0, count: Envelope.saltByteCount)
        let bytes = header + Array(try Self.content.encoded()) + [0x80] + [UInt8](repeating: 0, count: 16)
        let wire = Base64URL.encode(bytes)
        let exposure = DemoExposure.examine(Self.apns(alert: "New message", wire: wire), transport: .apns, plaintext: Self.plaintext)
        #expect(exposure.plaintextFound == ["cid", "mid", "title", "body"])
    }

    @Test func anFCMMessageWithANotificationBlockOrNoEnvelopeIsReported() {
        let message = Array(#"{"message":{"token":"t","notification":{"body":"Alice Martin"},"data":{}}}"#.utf8)
        let exposure = DemoExposure.examine(message, transport: .fcm, plaintext: Self.plaintext)
        #expect(exposure.hasNotificationBlock)
        #expect(exposure.plaintextFound == ["title"])
        #expect(exposure.problems == [#"the payload has no "pushseal" string"#])
        let garbage = DemoExposure.examine(Array("not json".utf8), transport: .fcm, plaintext: Self.plaintext)
        #expect(garbage.problems.first == "the payload is not a JSON object")
        let malformed = DemoExposure.examine(Self.apns(alert: "New message", wire: "AAAA"), transport: .apns, plaintext: Self.plaintext)
        #expect(malformed.problems.first?.hasPrefix("the payload's envelope is malformed") == true)
    }

    @Test func fragmentsMadeOnlyOfBase64URLCharactersAreNotSearched() {
        let needles = DemoExposure.needles(Array("IMG_2026_0001.jpg, IMG_2026_0002.jpg".utf8))
        #expect(needles.first == Array("IMG_2026_0001.jpg, IMG_2026_0002.jpg".utf8))
        #expect(needles.dropFirst().allSatisfy { $0.count == DemoExposure.fragmentLength })
        #expect(needles.dropFirst().allSatisfy { !$0.allSatisfy(DemoExposure.isBase64URLCharacter) })
        #expect(!needles.contains(Array("IMG_2026_000".utf8)))
        #expect(DemoExposure.needles(Array("short".utf8)) == [Array("short".utf8)])
        #expect(DemoExposure.needles([]) == [])
    }

    @Test func everyDemoStringHasACharacterOutsideTheBase64URLAlphabet() {
        let now: Int64 = 1_700_000_000
        let notifications = [
            DemoNotifications.chatMessage(now: now), DemoNotifications.longMessage(now: now),
            DemoNotifications.groupMessage(now: now), DemoNotifications.inFlight(now: now),
            DemoNotifications.afterRotation(now: now), DemoNotifications.contentFree(now: now),
            DemoNotifications.stale(now: now), DemoNotifications.afterLogout(now: now),
        ]
        for notification in notifications {
            for (field, text) in notification.plaintextStrings {
                #expect(!text.utf8.allSatisfy(DemoExposure.isBase64URLCharacter), "\(notification.name) \(field)")
            }
        }
    }

    // MARK: Formatting and files

    @Test func sizesAreGroupedAndAligned() {
        #expect(DemoFormat.grouped(0) == "0")
        #expect(DemoFormat.grouped(999) == "999")
        #expect(DemoFormat.grouped(1_024) == "1,024")
        #expect(DemoFormat.grouped(1_234_567) == "1,234,567")
        #expect(DemoFormat.grouped(-4_096) == "-4,096")
        #expect(DemoFormat.size(529, of: 4096) == "  529 / 4,096 bytes")
        #expect(DemoFormat.size(4095, of: 4096) == "4,095 / 4,096 bytes")
        #expect(DemoFormat.abbreviated("short") == "short")
        #expect(DemoFormat.abbreviated(String(repeating: "👨‍👩‍👧‍👦", count: 80), limit: 3) == "👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦 […]")
    }

    @Test func removingTheTemporaryDirectoryNeverFollowsSymbolicLinks() throws {
        let outside = try makeTemporaryDirectory()
        let tree = try makeTemporaryDirectory()
        defer {
            removeTemporaryDirectory(outside)
            removeTemporaryDirectory(tree)
        }
        let manager = FileManager.default
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside + "/precious"))
        try manager.createDirectory(atPath: tree + "/a/b", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: tree + "/a/b/file"))
        try manager.createSymbolicLink(atPath: tree + "/a/link", withDestinationPath: outside)
        #expect(DemoWorkspace(root: tree, isTemporary: true).removeIfTemporary())
        #expect(!manager.fileExists(atPath: tree))
        #expect(try Data(contentsOf: URL(fileURLWithPath: outside + "/precious")) == Data("keep".utf8))
    }

    @Test func aKeptDirectoryIsNeverRemoved() throws {
        let tree = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(tree) }
        try Data("x".utf8).write(to: URL(fileURLWithPath: tree + "/file"))
        #expect(DemoWorkspace(root: tree, isTemporary: false).removeIfTemporary())
        #expect(FileManager.default.fileExists(atPath: tree + "/file"))
    }
}

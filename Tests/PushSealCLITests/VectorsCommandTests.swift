import Foundation
import Testing

@Suite("pushseal vectors")
struct VectorsCommandTests {
    static let committed = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors/pushseal-v1.json").path

    @Test("generate prints the committed file byte for byte, and -o writes it")
    func generate() throws {
        let committed = try #require(FileManager.default.contents(atPath: Self.committed))
        let run = try runPushSeal(["vectors", "generate"])
        #expect(run.status == 0)
        #expect(run.stdoutBytes == Array(committed))
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let written = try runPushSeal(["vectors", "generate", "-o", directory + "/v.json"])
        #expect(written.status == 0)
        #expect(FileManager.default.contents(atPath: directory + "/v.json") == committed)
    }

    @Test("verify passes the committed file and prints the closing line")
    func verifyPasses() throws {
        let run = try runPushSeal(["vectors", "verify", Self.committed])
        #expect(run.status == 0)
        #expect(run.stdout.hasSuffix(" passed, 0 failed\n"))
    }

    @Test("generate --provider prints the committed provider file; verify passes it")
    func providerFile() throws {
        let path = Self.committed.replacingOccurrences(of: "pushseal-v1.json", with: "pushseal-v1-provider.json")
        let committed = try #require(FileManager.default.contents(atPath: path))
        let run = try runPushSeal(["vectors", "generate", "--provider"])
        #expect(run.status == 0)
        #expect(run.stdoutBytes == Array(committed))
        let verified = try runPushSeal(["vectors", "verify", path])
        #expect(verified.status == 0)
        #expect(verified.stdout.hasSuffix(" passed, 0 failed\n"))
        var text = String(decoding: committed, as: UTF8.self)
        let range = try #require(text.range(of: #""path": "truncated""#))
        text.replaceSubrange(range, with: #""path": "complete""#)
        let wrong = try runPushSeal(["vectors", "verify", "-"], stdin: text)
        #expect(wrong.status == 1)
        #expect(wrong.stdout.contains("path differs"))
    }

    @Test("generate --bundles prints the committed bundle file; verify passes it and the RFC 9180 file")
    func bundleFile() throws {
        let path = Self.committed.replacingOccurrences(of: "pushseal-v1.json", with: "pushseal-v1-bundles.json")
        let committed = try #require(FileManager.default.contents(atPath: path))
        let run = try runPushSeal(["vectors", "generate", "--bundles"])
        #expect(run.status == 0)
        #expect(run.stdoutBytes == Array(committed))
        let verified = try runPushSeal(["vectors", "verify", path])
        #expect(verified.status == 0)
        #expect(verified.stdout == "60 passed, 0 failed\n")
        let both = try runPushSeal(["vectors", "generate", "--bundles", "--provider"])
        #expect(both.status == 64)
        #expect(both.stderr.contains("Give at most one of '--provider', '--bundles', '--store' and '--devices'."))
        let hpke = URL(fileURLWithPath: Self.committed).deletingLastPathComponent()
            .appendingPathComponent("external/rfc9180/rfc9180-x25519-sha256-chacha20poly1305.json").path
        let rfcRun = try runPushSeal(["vectors", "verify", hpke])
        #expect(rfcRun.status == 0)
        #expect(rfcRun.stdout.contains("note: 2 RFC 9180 vectors in psk modes are outside PushSeal's HPKE"))
        #expect(rfcRun.stdout.hasSuffix("2 passed, 0 failed\n"))
    }

    @Test("verify fails, listing the case, when an expectation is wrong")
    func verifyCatchesDifferences() throws {
        var text = try String(contentsOfFile: Self.committed, encoding: .utf8)
        let range = try #require(text.range(of: #""reason": "authentication_failed""#))
        text.replaceSubrange(range, with: #""reason": "malformed_content""#)
        let run = try runPushSeal(["vectors", "verify", "-"], stdin: text)
        #expect(run.status == 1)
        #expect(run.stdout.contains("FAIL tcId "))
        #expect(run.stdout.contains(" passed, 1 failed"))
    }

    @Test("verify refuses a file in another schema and a missing file")
    func verifyRefuses() throws {
        let other = try runPushSeal(["vectors", "verify", "-"], stdin: #"{"schema":"aead_test_schema_v1.json","tests":[]}"#)
        expectFailure(other, messagePrefix: "not a pushseal_v1_test_schema, pushseal_v1_provider_test_schema, pushseal_v1_bundle_test_schema or RFC 9180 HPKE vector file", hint: true)
        let missing = try runPushSeal(["vectors", "verify", "/nonexistent/v.json"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("pushseal: error:"))
    }
}

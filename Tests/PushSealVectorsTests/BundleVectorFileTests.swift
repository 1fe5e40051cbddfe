import Foundation
import PushSealCore
@testable import PushSealVectors
import Testing

let committedBundleVectorFile = repositoryRoot.appendingPathComponent("Vectors/pushseal-v1-bundles.json")

@Suite("Bundle vector file")
struct BundleVectorFileTests {
    @Test("Vectors/pushseal-v1-bundles.json regenerates byte for byte")
    func regeneratesByteForByte() throws {
        let committed = try #require(FileManager.default.contents(atPath: committedBundleVectorFile.path), "missing \(committedBundleVectorFile.path)")
        let generated = Array(BundleVectorSuite.render().utf8)
        if let index = zip(generated, committed).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("first difference at byte \(index); run `pushseal vectors generate --bundles -o Vectors/pushseal-v1-bundles.json`")
        }
        #expect(Array(committed) == generated)
    }

    @Test("every bundle reason and every outcome have cases; ids are stable; big integers appear")
    func coverage() {
        let cases = BundleVectorSuite.cases()
        #expect(cases.map(\.tcId) == Array(1...cases.count))
        for reason in KeyBundleReason.allCases {
            #expect(cases.contains { if case let .failure(error) = $0.outcome { error.reason == reason } else { false } }, "no case for \(reason.rawValue)")
        }
        for installation in KeyBundleInstallation.allCases {
            #expect(cases.contains { (try? $0.outcome.get())?.installation == installation }, "no case for \(installation.rawValue)")
        }
        #expect(cases.filter(\.resealable).count >= 6)
        let text = BundleVectorSuite.render()
        for big in ["9007199254740993", "9223372036854775806", "9223372036854775807"] {
            #expect(text.contains(": \(big)"), "no integer \(big)")
        }
    }

    @Test("the committed file verifies: every case passes")
    func verifies() throws {
        let bytes = try #require(FileManager.default.contents(atPath: committedBundleVectorFile.path))
        let report = try VectorVerifier.verify(fileBytes: Array(bytes))
        #expect(report.failed == 0, "\(report.failures)")
        #expect(report.passed == BundleVectorSuite.caseCount)
    }

    @Test("a changed expectation, intermediate or bundle is reported", arguments: [
        ("\"reason\": \"kid_mismatch\"", "\"reason\": \"bundle_expired\""),
        ("\"outcome\": \"already_installed\"", "\"outcome\": \"installed\""),
        ("\"outcome\": \"installed_retired\"", "\"outcome\": \"installed\""),
        ("\"result\": \"valid\"", "\"result\": \"invalid\""),
        ("\"retireEarlierAt\": 1762672000", "\"retireEarlierAt\": 1764400000"),
        ("\"notAfter\": 1764313660", "\"notAfter\": 1764396400"),
        ("\"highWater\": 65537", "\"highWater\": 65536"),
    ])
    func mutationsFail(from: String, to: String) throws {
        let text = BundleVectorSuite.render()
        let range = try #require(text.range(of: from))
        let mutated = text.replacingCharacters(in: range, with: to)
        let report = try VectorVerifier.verify(fileBytes: Array(mutated.utf8))
        #expect(report.failed == 1)
    }

    @Test("a changed shared secret or bundle byte is reported")
    func intermediateMutationsFail() throws {
        let first = try #require(BundleVectorSuite.cases().first)
        let secret = try #require(first.context).sharedSecret.withUnsafeBytes { Hex.encode($0) }
        var text = BundleVectorSuite.render()
        text = text.replacingOccurrences(of: secret, with: String(repeating: "0", count: 64))
        #expect(try VectorVerifier.verify(fileBytes: Array(text.utf8)).failed >= 1)
        var resealed = BundleVectorSuite.render()
        let bundle = first.bundleText
        var changed = Array(bundle)
        changed[100] = changed[100] == "A" ? "B" : "A"
        resealed = resealed.replacingOccurrences(of: "\"bundle\": \"\(bundle)\"", with: "\"bundle\": \"\(String(changed))\"")
        #expect(try VectorVerifier.verify(fileBytes: Array(resealed.utf8)).failed >= 1)
    }

    @Test("the RFC 9180 A.2 file verifies: base and auth pass, the psk modes are not applicable")
    func rfc9180File() throws {
        // RFC 9180 A.2, vendored in the repository (Vectors/external/manifest.json has its digest).
        let file = repositoryRoot.appendingPathComponent("Vectors/external/rfc9180/rfc9180-x25519-sha256-chacha20poly1305.json")
        let bytes = try #require(FileManager.default.contents(atPath: file.path))
        let report = try VectorVerifier.verify(fileBytes: Array(bytes))
        #expect(report.passed == 2 && report.failed == 0 && report.notApplicable == 2, "\(report.failures)")
        let mutated = String(decoding: bytes, as: UTF8.self).replacingOccurrences(
            of: "d2d67828c8bc9fa661cf15a31b3ebf1febe0cafef7abfaaca580aaf6d471e3eb", with: String(repeating: "1", count: 64))
        #expect(try VectorVerifier.verify(fileBytes: Array(mutated.utf8)).failed == 1)
    }
}

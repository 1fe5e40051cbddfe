import Foundation
@_spi(Vectors) import PushSealCore
import PushSealVectors
import Testing

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let committedVectorFile = repositoryRoot.appendingPathComponent("Vectors/pushseal-v1.json")

@Suite("Vector file")
struct VectorFileTests {
    @Test("Vectors/pushseal-v1.json regenerates byte for byte")
    func regeneratesByteForByte() throws {
        let committed = try #require(FileManager.default.contents(atPath: committedVectorFile.path), "missing \(committedVectorFile.path)")
        let generated = Array(VectorSuite.render().utf8)
        #expect(generated.count == committed.count)
        if let index = zip(generated, committed).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("first difference at byte \(index); run `pushseal vectors generate > Vectors/pushseal-v1.json` and review the diff")
        }
        #expect(Array(committed) == generated)
    }

    @Test("every reason code and the duplicate flag have cases; ids are stable and unique")
    func coverage() throws {
        let cases = VectorSuite.cases()
        #expect(cases.map(\.tcId) == Array(1...cases.count))
        for reason in ReasonCode.allCases {
            #expect(cases.contains { $0.reason == reason }, "no case for \(reason.rawValue)")
        }
        #expect(cases.contains { $0.reason == nil && $0.duplicate })
        #expect(cases.filter { $0.reason == nil }.count >= 10)
    }

    @Test("intermediate values are consistent with the envelope bytes")
    func intermediates() throws {
        for vector in VectorSuite.cases() {
            if let padBlock = vector.padBlock, let content = vector.content {
                let padded = Padding.pad(content, toLength: Padding.paddedLength(contentLength: content.count, blockSize: padBlock))
                #expect(padded == vector.plaintext, "tcId \(vector.tcId): padding")
            }
            if vector.resealable {
                let key = try #require(vector.sealKey), salt = try #require(vector.salt), plaintext = try #require(vector.plaintext)
                #expect(Envelope.seal(plaintext: plaintext, with: key, salt: salt).wire == vector.wire, "tcId \(vector.tcId): reseal")
                let mk = HMACSHA256.authenticationCode(for: Array("pushseal v1 message key".utf8) + salt + [1], using: key.symmetricKey)
                #expect(vector.messageKey == mk, "tcId \(vector.tcId): message key")
            }
            if vector.reason == nil {
                #expect(vector.payload.utf8.count <= 4096, "tcId \(vector.tcId): a valid payload fits APNs")
            }
        }
    }

    @Test("the file parses with a generic JSON parser and counts its tests")
    func fileShape() throws {
        let data = try #require(FileManager.default.contents(atPath: committedVectorFile.path))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(root["schema"] as? String == "pushseal_v1_test_schema")
        let tests = try #require(root["tests"] as? [[String: Any]])
        #expect(tests.count == root["numberOfTests"] as? Int)
    }
}

import Foundation
@_spi(Vectors) import PushSealCore
@_spi(Vectors) import PushSealProvider
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
                let mk = HMACSHA256.authenticationCode(for: Array("pushseal v1 message key".utf8) + salt + [1], using: key.secretKey)
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

@Suite("Vector verification through the Swift receiver")
struct VectorVerificationTests {
    @Test("every case of the committed file passes through Receiver and the sealer")
    func committedFilePasses() throws {
        let bytes = try #require(FileManager.default.contents(atPath: committedVectorFile.path))
        let report = try VectorVerifier.verify(fileBytes: Array(bytes))
        #expect(report.failures.isEmpty, "\(report.failures.joined(separator: "\n"))")
        #expect(report.passed == VectorSuite.cases().count)
    }

    @Test("a wrong expectation in the file is caught")
    func catchesWrongExpectations() throws {
        let text = VectorSuite.render()
        // Claim that the first case (valid) is authentication_failed.
        let mutated = text.replacingFirst(#""result": "valid",\#n      "reason": null"#,
                                          with: #""result": "invalid",\#n      "reason": "authentication_failed""#)
        #expect(mutated != text)
        let report = try VectorVerifier.verify(fileBytes: Array(mutated.utf8))
        #expect(report.failed == 1)
        #expect(report.failures.first?.hasPrefix("tcId 1:") == true)
    }

    @Test("a wrong intermediate (tag, header, envelope, thread id) is caught")
    func catchesWrongIntermediates() throws {
        let text = VectorSuite.render()
        for field in ["tagHex", "headerHex", "envelopeHex", "threadId"] {
            let marker = "\"\(field)\": \""
            let range = try #require(text.range(of: marker))
            // Change the first character of the value: hex stays hex, base64url stays base64url.
            let first = text.index(range.upperBound, offsetBy: 0)
            let replacement = text[first] == "0" ? "1" : "0"
            let mutated = text.replacingCharacters(in: first...first, with: replacement)
            let report = try VectorVerifier.verify(fileBytes: Array(mutated.utf8))
            #expect(report.failed == 1, "\(field)")
            #expect(report.failures.first?.contains("\(field) differs") == true, "\(field)")
        }
    }

    @Test("a handed kid with locked, retire-by and previously-seen: the state is the key source's the key is filed under")
    func handedKidCombinations() throws {
        let handed = VectorSuite.cases().filter { $0.keySourceKeyID != nil }
        // Each combination, under another key's id and under the key's own derived kid.
        for own in [false, true] {
            let group = handed.filter { ($0.keySourceKeyID == $0.receiverKey.id.bytes) == own }
            #expect(group.contains { $0.keyStoreLocked && $0.reason == .storeLocked }, "own \(own): locked")
            #expect(group.contains { $0.keyRetireBy != nil && $0.reason == (own ? .retiredKey : .unknownKey) }, "own \(own): retire-by")
            #expect(group.contains { $0.previouslySeen && $0.reason == (own ? nil : .unknownKey) }, "own \(own): previously seen")
        }
        #expect(handed.contains { $0.previouslySeen && $0.conflict && $0.duplicate && $0.reason == nil })
        // The verifier gets each of them right (it applied the state to the wrong source before).
        let report = try VectorVerifier.verify(fileBytes: Array(VectorSuite.render().utf8))
        let failedIDs = Set(handed.map(\.tcId)).intersection(report.failures.compactMap { line in
            line.split(separator: ":").first.flatMap { Int($0.dropFirst("tcId ".count)) }
        })
        #expect(failedIDs.isEmpty, "\(report.failures.joined(separator: "\n"))")
        #expect(report.failed == 0)
    }

    @Test("2^53 + 1, 2^63 - 2 and 2^63 - 1 appear in the receiver, provider and store files")
    func largeIntegersAppear() {
        for (name, text) in [("receiver", VectorSuite.render()), ("provider", ProviderVectorSuite.render()), ("store", StoreVectorSuite.render())] {
            for big in ["9007199254740993", "9223372036854775806", "9223372036854775807"] {
                #expect(text.contains(": \(big)"), "\(name): no integer \(big)")
            }
        }
    }

    @Test("a file that is not in the schema is refused")
    func refusesOtherFiles() {
        #expect(throws: VectorVerifier.FileError.self) { try VectorVerifier.verify(fileBytes: Array("{}".utf8)) }
        #expect(throws: VectorVerifier.FileError.self) { try VectorVerifier.verify(fileBytes: Array("not json".utf8)) }
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}

@Suite("Vectors and the provider agree")
struct VectorProviderTests {
    @Test("every valid case in canonical form is exactly what NotificationSealer emits for its content, key and salt")
    func providerReproducesValidCases() throws {
        var compared = 0
        for vector in VectorSuite.cases() where vector.reason == nil {
            let key = try #require(vector.sealKey), salt = try #require(vector.salt), bytes = try #require(vector.content)
            let content = try NotificationContent(decoding: bytes)
            // Only contents the sender would produce itself (canonical encoding, the sender's padding).
            guard try content.encoded() == bytes, let padBlock = vector.padBlock else { continue }
            let sealer = try NotificationSealer(padBlock: padBlock)
            let apns = try sealer.seal(content, with: key, options: VectorTransports.apnsOptions, salt: salt)
            let fcm = try sealer.seal(content, with: key, options: VectorTransports.fcmOptions, salt: salt)
            if !vector.flags.contains("PayloadShape") {  // those cases rewrite the payload on purpose
                #expect(String(decoding: apns.body, as: UTF8.self) == vector.payload, "tcId \(vector.tcId): APNs")
            }
            #expect(String(decoding: fcm.body, as: UTF8.self) == vector.fcm, "tcId \(vector.tcId): FCM")
            compared += 1
        }
        #expect(compared >= 15)
    }
}

let committedProviderVectorFile = repositoryRoot.appendingPathComponent("Vectors/pushseal-v1-provider.json")

@Suite("Provider vector file")
struct ProviderVectorFileTests {
    @Test("Vectors/pushseal-v1-provider.json regenerates byte for byte")
    func regeneratesByteForByte() throws {
        let committed = try #require(FileManager.default.contents(atPath: committedProviderVectorFile.path))
        let generated = Array(ProviderVectorSuite.render().utf8)
        if let index = zip(generated, committed).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("first difference at byte \(index); run `pushseal vectors generate --provider -o Vectors/pushseal-v1-provider.json`")
        }
        #expect(Array(committed) == generated)
    }

    @Test("every case passes through NotificationSealer, and a changed byte is caught")
    func verifies() throws {
        let bytes = Array(try #require(FileManager.default.contents(atPath: committedProviderVectorFile.path)))
        let report = try VectorVerifier.verify(fileBytes: bytes)
        #expect(report.failures.isEmpty, "\(report.failures.joined(separator: "\n"))")
        #expect(report.passed == ProviderVectorSuite.cases().count)
        var text = String(decoding: bytes, as: UTF8.self)
        let range = try #require(text.range(of: #""error": "does_not_fit""#))
        text.replaceSubrange(range, with: #""error": "invalid_content""#)
        #expect(try VectorVerifier.verify(fileBytes: Array(text.utf8)).failed == 1)
    }

    @Test("the cases cover every path, every error, both transports, the padding cap and many scripts")
    func coverage() throws {
        let cases = ProviderVectorSuite.cases()
        #expect(cases.map(\.tcId) == Array(1...cases.count))
        var paths: Set<String> = [], errors: Set<String> = []
        for vector in cases {
            switch vector.seal() {
            case let .success(sealed):
                paths.insert(ProviderVectorCase.pathName(sealed.path))
                #expect(sealed.sizes.limitedByteCount <= sealed.sizes.limit, "tcId \(vector.tcId)")
                if vector.flags.contains("PaddingCap") {
                    // Capped: one more padding byte would cross the limit.
                    let next = sealed.sizes.envelopeByteCount + 1
                    #expect(Base64URL.encodedLength(of: next) + sealed.sizes.limitedByteCount - sealed.sizes.wireLength > sealed.sizes.limit
                            || next > Envelope.maximumByteCount, "tcId \(vector.tcId)")
                }
            case let .failure(error):
                errors.insert(error.code)
            }
        }
        #expect(paths == ["complete", "truncated", "content_free"])
        // invalid_option has no file case: the one option a case could get wrong, an in-band bundle of
        // another key, is only detectable where the bundle was sealed (its kid is sealed; InBandBundleTests).
        #expect(errors == ["does_not_fit", "invalid_content"])
        #expect(cases.filter { $0.flags.contains("Grapheme") }.count >= 50)
        #expect(cases.contains { if case .fcm = $0.transport { $0.flags.contains("Truncated") } else { false } })
    }

    @Test("a key bundle case on the truncated, content-free or does-not-fit path takes another path without its bundle")
    func keyBundleCausesThePath() throws {
        func outcome(_ vector: ProviderVectorCase) -> String {
            switch vector.seal() {
            case let .success(sealed): ProviderVectorCase.pathName(sealed.path)
            case let .failure(error): error.code
            }
        }
        let bundleCases = ProviderVectorSuite.cases().filter { $0.flags.contains("KeyBundle") }
        var caused: [String: Set<String>] = [:]
        for vector in bundleCases {
            var without = vector
            let transport: String
            switch vector.transport {
            case var .apns(options):
                options.keyBundle = nil
                without.transport = .apns(options)
                transport = "apns"
            case var .fcm(options):
                options.keyBundle = nil
                without.transport = .fcm(options)
                transport = "fcm"
            }
            let path = outcome(vector)
            guard ["truncated", "content_free", "does_not_fit"].contains(path) else { continue }
            #expect(outcome(without) != path, "tcId \(vector.tcId): \(path) without the bundle too")
            caused[transport, default: []].insert(path)
        }
        #expect(caused["apns"] == ["truncated", "content_free", "does_not_fit"])
        #expect(caused["fcm"] == ["truncated", "content_free"])
    }

    @Test("an option member the verifier does not know fails the case (it is not sealed without it)")
    func unknownOptionFails() throws {
        let bytes = Array(try #require(FileManager.default.contents(atPath: committedProviderVectorFile.path)))
        let text = String(decoding: bytes, as: UTF8.self)
        for (member, renamed) in [(#""keyBundle":"#, #""keyBundle2":"#), (#""ttl":"#, #""ttl2":"#)] {
            let range = try #require(text.range(of: member))
            let edited = text.replacingCharacters(in: range, with: renamed)
            let report = try VectorVerifier.verify(fileBytes: Array(edited.utf8))
            #expect(report.failed == 1)
            #expect(report.failures.contains { $0.contains("malformed") }, "\(report.failures)")
        }
    }
}

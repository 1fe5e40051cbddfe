import Foundation
import PushSealCore
@testable import PushSealVectors
import Testing

let committedDeviceKeyVectorFile = repositoryRoot.appendingPathComponent("Vectors/pushseal-v1-devices.json")

@Suite("Device key vector file")
struct DeviceKeyVectorFileTests {
    @Test("Vectors/pushseal-v1-devices.json regenerates byte for byte and verifies")
    func regeneratesAndVerifies() throws {
        let committed = try #require(FileManager.default.contents(atPath: committedDeviceKeyVectorFile.path), "missing \(committedDeviceKeyVectorFile.path)")
        #expect(Array(committed) == Array(DeviceKeyVectorSuite.render().utf8),
                "run `pushseal vectors generate --devices -o Vectors/pushseal-v1-devices.json`")
        let report = try VectorVerifier.verify(fileBytes: Array(committed))
        #expect(report.failed == 0, "\(report.failures)")
        #expect(report.passed == DeviceKeyVectorSuite.caseCount)
    }

    @Test("the devices of one epoch have distinct keys, kids and thread-ids")
    func devicesDiffer() throws {
        let epochOne = DeviceKeyVectorSuite.cases().filter { $0.comment.hasPrefix("epoch 1") }
        #expect(epochOne.count == 3)
        let keys = epochOne.map { $0.conversationKey.deviceKey(for: $0.deviceKeyID) }
        #expect(Set(keys.map { $0.withUnsafeBytes { Array($0) } }).count == 3)
        #expect(Set(keys.map(\.id)).count == 3)
        #expect(Set(keys.map(\.opaqueThreadID)).count == 3)
    }

    @Test("a changed derived value is reported", arguments: ["deviceKey", "kid", "threadId", "info"])
    func mutationsFail(field: String) throws {
        let text = DeviceKeyVectorSuite.render()
        let marker = "\"\(field)\": \""
        let start = try #require(text.range(of: marker)).upperBound
        var mutated = text
        let index = mutated.index(start, offsetBy: 2)
        mutated.replaceSubrange(index...index, with: mutated[index] == "A" ? "B" : "A")
        #expect(try VectorVerifier.verify(fileBytes: Array(mutated.utf8)).failed >= 1)
    }
}

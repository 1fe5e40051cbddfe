import Foundation
import PushSealCore
import PushSealKeyDirectory
import PushSealProvider
import Testing

// BEGIN Docs/PROVIDER.md §5.4 (compared with the document by the test below)
/// Seals the JSON lines that `read` delivers for APNs: each payload goes to `send`, each
/// failed line's error object to `reject`, in input order. Returns the number of lines.
func sealStream(
    read: @escaping (UnsafeMutableRawBufferPointer) -> Int, keys: any CurrentKeyProvider,
    send: ([UInt8]) -> Void, reject: ([UInt8]) -> Void
) throws -> Int {
    let sealer = try NotificationSealer()
    let reader = JSONLineReader<Never>(maximumLineByteCount: SealRequestLine.maximumByteCount, read: read)
    let options = APNsOptions(placeholder: .text(title: nil, body: "New message"))
    return sealer.seal(lines: reader, keyProvider: keys, item: { request in
        BatchItem(content: request.content, key: request.key, options: options)
    }, outcomes: { outcomes in
        for outcome in outcomes {
            switch outcome.result {
            case let .success(request): send(request.body)
            case let .failure(error): reject(error.jsonLine(line: outcome.line))
            }
        }
    })
}
// END Docs/PROVIDER.md §5.4

/// The Swift examples of Docs/PROVIDER.md that live in this target.
@Suite("PROVIDER.md provider examples")
struct ProviderDocExampleTests {
    /// The first Swift block of `section` in Docs/PROVIDER.md, without its imports.
    static func documentBlock(_ section: String) throws -> String {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Docs/PROVIDER.md").path
        let text = try String(contentsOfFile: docs, encoding: .utf8)
        let part = try #require(text.components(separatedBy: section).dropFirst().first)
        let block = try #require(part.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "```").first)
        return block.split(separator: "\n", omittingEmptySubsequences: false).drop { $0.hasPrefix("import ") || $0.isEmpty }
            .joined(separator: "\n")
    }

    /// This file's code between `// BEGIN Docs/PROVIDER.md <name>` and `// END …`.
    static func code(_ name: String) throws -> String {
        let here = try String(contentsOfFile: #filePath, encoding: .utf8)
        return try #require(here.components(separatedBy: "// BEGIN Docs/PROVIDER.md \(name) (compared with the document by the test below)\n").last?
            .components(separatedBy: "// END Docs/PROVIDER.md \(name)").first)
    }

    @Test("§5.4: the document's example is this file's code")
    func streamExampleIsVerbatim() throws {
        #expect(try Self.documentBlock("### 5.4 The same stream in Swift") == Self.code("§5.4"))
    }

    /// One key for every conversation.
    struct OneKey: CurrentKeyProvider {
        let key: ConversationKey
        func currentKey(conversation: String) throws -> ConversationKey { key }
    }

    @Test("§5.4: every line gets one result, in order; a bad line fails only itself")
    func streamExample() throws {
        let input = Array("""
            {"cid":"c1","mid":"m1","ts":\(systemClock()),"body":"one"}
            {"cid":"c1","mid":"m2"
            {"cid":"c1","mid":"m3","ts":\(systemClock()),"body":"three"}
            """.utf8)
        var offset = 0
        let read = { (buffer: UnsafeMutableRawBufferPointer) -> Int in
            let count = min(buffer.count, 10, input.count - offset)
            for index in 0..<count { buffer[index] = input[offset + index] }
            offset += count
            return count
        }
        var sent: [[UInt8]] = []
        var rejected: [String] = []
        let count = try sealStream(
            read: read, keys: OneKey(key: ConversationKey.generate()), send: { sent.append($0) },
            reject: { rejected.append(String(decoding: $0, as: UTF8.self)) })
        #expect(count == 3)
        #expect(sent.count == 2)
        #expect(sent.allSatisfy { $0.starts(with: Array(#"{"aps":"#.utf8)) })
        #expect(rejected.count == 1)
        #expect(rejected.first?.hasPrefix(#"{"error":{"line":2,"code":"invalid_content""#) == true, "\(rejected)")
    }
}

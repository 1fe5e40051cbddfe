import Foundation
import Testing
import PushSealCore

/// The vendored external vectors (`Vectors/external/`) are the files their manifest names: every
/// digest matches, every case count matches, and no vector file is there that the manifest does
/// not list. Also the SHA-256 the check uses, against FIPS 180-4's examples.
@Suite("External vector manifest")
struct ExternalVectorManifestTests {
    /// What is wrong with the directory against its `manifest.json`: one line per problem, empty when
    /// every listed file exists with its digest and case count and no `.json` file is unlisted.
    static func problems(in directory: URL) throws -> [String] {
        let manifestData = try #require(FileManager.default.contents(atPath: directory.appendingPathComponent("manifest.json").path))
        let manifest = try #require(try JSONSerialization.jsonObject(with: manifestData) as? [String: Any])
        let entries = try #require(manifest["files"] as? [[String: Any]])
        var problems: [String] = []
        var listed: Set<String> = []
        for entry in entries {
            let path = try #require(entry["path"] as? String)
            listed.insert(path)
            for field in ["origin", "version", "license"] where ((entry[field] as? String) ?? "").isEmpty {
                problems.append("\(path): no \(field)")
            }
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(path).path) else {
                problems.append("\(path): missing")
                continue
            }
            let digest = SHA256Digest.hash(Array(data)).map { String(format: "%02x", $0) }.joined()
            if digest != entry["sha256"] as? String { problems.append("\(path): sha256 \(digest)") }
            let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            let cases = (root?["numberOfTests"] as? Int) ?? (root?["vectors"] as? [Any])?.count
            if cases != entry["cases"] as? Int { problems.append("\(path): \(cases.map(String.init) ?? "no") cases") }
        }
        let enumerator = try #require(FileManager.default.enumerator(atPath: directory.path))
        for case let relative as String in enumerator where relative.hasSuffix(".json") && relative != "manifest.json" {
            if !listed.contains(relative) { problems.append("\(relative): not in the manifest") }
        }
        return problems.sorted()
    }

    @Test("every vendored file matches its manifest entry (digest, case count, provenance) and none is unlisted")
    func vendoredFilesMatch() throws {
        #expect(try Self.problems(in: externalVectorsDirectory) == [])
        let data = try #require(FileManager.default.contents(atPath: externalVectorsDirectory.appendingPathComponent("manifest.json").path))
        let entries = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["files"] as? [[String: Any]])
        #expect(entries.compactMap { $0["path"] as? String }.sorted() == [
            "rfc9180/rfc9180-x25519-sha256-chacha20poly1305.json", "wycheproof/chacha20_poly1305_test.json",
            "wycheproof/hkdf_sha256_test.json", "wycheproof/hmac_sha256_test.json", "wycheproof/x25519_test.json",
        ])
    }

    @Test("the check finds a changed byte, a missing file and an unlisted file")
    func checkFindsTampering() throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("pushseal-external-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: externalVectorsDirectory, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let hmac = copy.appendingPathComponent("wycheproof/hmac_sha256_test.json")
        var bytes = try #require(FileManager.default.contents(atPath: hmac.path))
        let index = try #require(bytes.firstIndex(of: UInt8(ascii: "a")))
        bytes[index] = UInt8(ascii: "b")
        try bytes.write(to: hmac)
        try FileManager.default.removeItem(at: copy.appendingPathComponent("wycheproof/x25519_test.json"))
        try Data("{}".utf8).write(to: copy.appendingPathComponent("rfc9180/extra.json"))
        let found = try Self.problems(in: copy)
        #expect(found.count == 3, "\(found)")
        #expect(found.contains { $0.hasPrefix("wycheproof/hmac_sha256_test.json: sha256 ") })
        #expect(found.contains("wycheproof/x25519_test.json: missing"))
        #expect(found.contains("rfc9180/extra.json: not in the manifest"))
    }

    @Test("SHA-256 gives FIPS 180-4's digests of \"\", \"abc\" and the two-block message")
    func sha256KnownAnswers() {
        func digest(_ text: String) -> String { SHA256Digest.hash(Array(text.utf8)).map { String(format: "%02x", $0) }.joined() }
        #expect(digest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }
}

import Foundation
import PushSealCore

/// The repository root, found from this file's path.
let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The vendored external vectors (`Vectors/external/`, listed with their digests in its
/// `manifest.json`): inside the repository, so a clone with nothing above it runs every test.
let externalVectorsDirectory: URL = repositoryRoot.appendingPathComponent("Vectors/external")

/// Wycheproof's files (`Vectors/external/wycheproof/`).
let wycheproofDirectory: URL = externalVectorsDirectory.appendingPathComponent("wycheproof")

enum TestFailure: Error, CustomStringConvertible {
    case missing(String)
    var description: String {
        switch self { case let .missing(what): "missing: \(what)" }
    }
}

/// Bytes of a hex string; fails the calling test on bad hex.
func hex(_ string: String) -> [UInt8] {
    guard let bytes = Hex.decode(string) else { fatalError("bad hex in test data: \(string)") }
    return bytes
}

/// A Wycheproof file's test groups, as loosely typed JSON.
struct WycheproofFile {
    let schema: String
    let numberOfTests: Int
    let groups: [[String: Any]]

    init(named name: String) throws {
        let url = wycheproofDirectory.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw TestFailure.missing("Wycheproof file \(url.path)")
        }
        let root = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        schema = root["schema"] as! String
        numberOfTests = root["numberOfTests"] as! Int
        groups = root["testGroups"] as! [[String: Any]]
    }

    /// Every test case with its group.
    var cases: [(group: [String: Any], test: [String: Any])] {
        groups.flatMap { group in (group["tests"] as! [[String: Any]]).map { (group, $0) } }
    }
}

import Foundation
import PushSealCore

/// The repository root, found from this file's path.
let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// `../shared/vectors/wycheproof` beside the checkout (or `PUSHSEAL_WYCHEPROOF_DIR`); for a git
/// worktree one level further down (`/work/wt/NAME`), the nearest `shared/vectors/wycheproof`
/// among the checkout's ancestors.
let wycheproofDirectory: URL = {
    if let override = ProcessInfo.processInfo.environment["PUSHSEAL_WYCHEPROOF_DIR"] {
        return URL(fileURLWithPath: override)
    }
    let beside = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/vectors/wycheproof")
    var ancestor = repositoryRoot.deletingLastPathComponent()
    while ancestor.path != "/" {
        let candidate = ancestor.appendingPathComponent("shared/vectors/wycheproof")
        if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        ancestor = ancestor.deletingLastPathComponent()
    }
    return beside
}()

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

import PushSealPlatform
import PushSealCLIKit

/// The helper executable `pushseal` runs from its own directory for what its static build
/// cannot link (`pushseal-full`: libpq and libcurl).
enum HelperExecutable {
    /// The path of `name` next to the running `pushseal`; when it is missing, an error saying that
    /// `user` needs it, with `hints` (how to build it).
    static func path(_ name: String, neededBy user: String, hints: String...) throws(CLIError) -> String {
        guard let me = ProcessSpawner.currentExecutablePath() else { throw .failure("cannot find the pushseal executable's directory") }
        let path = FileSystem.directoryName(of: me) + "/" + name
        guard access(path, X_OK) == 0 else {
            throw .failure(Diagnostic("\(user) needs \(name) next to pushseal (\(path) is missing)", hints: hints))
        }
        return path
    }
}

import Foundation
import PushSealCore
import Testing

/// A PostgreSQL connection URI where `pushseal` expects a key store directory: a clear error,
/// never a directory named `postgresql:` created in the working directory, never the password.
@Suite struct ConnectionURITests {
    static let uri = "postgresql://pushseal:hunter2@db.internal/chat?sslmode=require"

    @Test(arguments: [
        ["store", "init", "--dir", uri], ["store", "list", "--dir", uri], ["store", "rotate", "--dir", uri, "--conversation", "c"],
        ["seal", "--store", uri], ["open", "--store", uri],
    ])
    func aConnectionURIIsRefusedWithAHint(arguments: [String]) throws {
        let cwd = FileManager.default.currentDirectoryPath
        let run = try runPushSeal(arguments, stdin: "")
        expectFailure(run, messagePrefix: "--", hint: true)
        #expect(run.stderrLines.first?.contains("is a PostgreSQL connection URI") == true, "\(run)")
        #expect(!run.stderr.contains("hunter2"))
        #expect(!FileManager.default.fileExists(atPath: cwd + "/postgresql:"))
    }
}

/// `pushseal bench --postgres` takes a connection URI only (checked before anything runs).
@Suite struct BenchPostgresOptionTests {
    @Test func aValueThatIsNotAConnectionURIIsAUsageError() throws {
        let run = try runPushSeal(["bench", "--quick", "--postgres", "/var/run/postgresql"], stdin: "")
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.contains("'--postgres <uri>' takes a connection URI"), "\(run)")
        #expect(run.stdout.isEmpty)
    }
}

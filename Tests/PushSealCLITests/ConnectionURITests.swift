import Foundation
import PushSealCore
import Testing

/// A PostgreSQL connection URI where only a SQLite store directory will do (the device's
/// commands: open, device, bundle install) or without the master key file it
/// needs: a usage error, never a directory named `postgresql:` created in the working directory,
/// never the password.
@Suite struct ConnectionURITests {
    static let uri = "postgresql://pushseal:hunter2@db.internal/chat?sslmode=require"

    @Test(arguments: [
        (["open", "--store", uri], "pushseal open", "store"),
        (["device", "show", "--dir", uri], "pushseal device show", "dir"),
        (["device", "init", "--dir", uri], "pushseal device init", "dir"),
        (["bundle", "install", "--dir", uri], "pushseal bundle install", "dir"),
    ])
    func aDeviceSideCommandRefusesAConnectionURI(arguments: [String], command: String, option: String) throws {
        let cwd = FileManager.default.currentDirectoryPath
        let run = try runPushSeal(arguments + ["--master-key-file", "/nonexistent/k"], stdin: "")
        expectUsageError(run, command: command, message: """
            '--\(option)' is a PostgreSQL connection URI, but this command works on a SQLite key store directory only; \
            a PostgreSQL key directory takes 'store init|add|get|list|rotate|remove|purge|rotate-master|provider-key|device', \
            'bundle seal' and 'seal --store'.
            """)
        #expect(!run.stderr.contains("hunter2"))
        #expect(!FileManager.default.fileExists(atPath: cwd + "/postgresql:"))
    }

    @Test(arguments: [
        (["store", "init", "--dir", uri], "pushseal store init", "dir"),
        (["store", "list", "--dir", uri], "pushseal store list", "dir"),
        (["seal", "--store", uri], "pushseal seal", "store"),
        (["store", "provider-key", "list", "--dir", uri], "pushseal store provider-key list", "dir"),
        (["store", "device", "list", "--dir", uri], "pushseal store device list", "dir"),
    ])
    func aConnectionURINeedsAMasterKeyFile(arguments: [String], command: String, option: String) throws {
        let run = try runPushSeal(arguments, stdin: "")
        expectUsageError(run, command: command, message: """
            '--\(option) <uri>' needs '--master-key-file <file>': a PostgreSQL key directory has no directory to keep its master key in.
            """)
        #expect(!run.stderr.contains("hunter2"))
    }

    @Test(arguments: [
        (["store", "remove", "--dir", uri, "--all"], "pushseal store remove",
         "'--all' empties a SQLite key store only; on a PostgreSQL key directory remove conversations with '--conversation <cid>'."),
        (["store", "purge", "--dir", uri, "--prune-duplicate-log"], "pushseal store purge",
         "'--prune-duplicate-log' prunes a device store's duplicate log; a PostgreSQL key directory has none."),
    ])
    func deviceStoreOptionsAreRefusedOnAURI(arguments: [String], command: String, message: String) throws {
        // Refused by the companion before it connects (db.internal is never contacted).
        let run = try runPushSeal(arguments + ["--master-key-file", "/nonexistent/k"], stdin: "")
        expectUsageError(run, command: command, message: message)
        #expect(!run.stderr.contains("hunter2"))
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

    /// Nothing is created on the server for a run whose --only leaves out every PostgreSQL figure
    /// (db.internal is never contacted).
    @Test func aSelectionWithoutPostgreSQLFiguresIsAUsageError() throws {
        expectUsageError(
            try runPushSeal(["bench", "--quick", "--only", "seal.apns", "--postgres", "postgresql://pushseal:hunter2@db.internal/chat"]),
            command: "pushseal bench",
            message: "'--postgres <uri>' measures the figures seal.postgres.* and postgres.*, which '--only' leaves out.")
    }
}

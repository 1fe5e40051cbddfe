import PushSealCLIKit
import PushSealCore

/// `pushseal demo`: the end-to-end walk-through (the implementation is in `Demo/`).
enum DemoCommand {
    static let directory = Option<FilePath?>(
        "dir", valueName: "dir", abstract: "Work in this directory (kept) instead of a temporary one (removed).")
    static let postgres = Option<String?>(
        "postgres", valueName: "uri",
        abstract: "Run the provider side on the PostgreSQL key directory at this server (postgresql://…) instead, as two backend nodes.")

    static let spec = CommandSpec(
        name: "demo",
        abstract: "Walk through PushSeal end to end: keys, sealed payloads, opening, fallbacks.",
        discussion: """
            Creates a provider key directory and a device store (SQLite, each with its own 0600 \
            master key file), provisions keys for two conversations to the device, seals \
            realistic notifications (a chat message, a long body that gets truncated, a \
            communication notification with a sender, a message after key rotation, a \
            content-free wake-and-fetch) into APNs and FCM payloads written to files, and opens \
            each on the device side through its key store. Then it shows the fallbacks that \
            matter: a tampered payload (authentication_failed), a duplicate delivery (duplicate \
            flag), a stale notification (stale), and a message after a logout wipe (unknown_key).

            For every payload it shows what Apple or Google would have seen: the placeholder \
            alert, the opaque thread id, the key id, and the size against the 4096-byte limit; \
            and it searches the payload bytes for every plaintext string (title, body, sender, \
            ids) and fails if one is there. The clock is the system time, read once and frozen \
            for the run, so the outcomes never depend on timing.

            Files: provider/ and device/ (the stores), provider.master.key and \
            device.master.key, payloads/NN-<name>.<apns|fcm>.json. Without --dir they live in a \
            new temporary directory that is removed at the end; --dir must name a new or empty \
            directory, which is kept.

            --json prints one JSON document on one line:
              {"demo":"pushseal","version":1,"passed":true,"error":null,
               "directory":"…","kept":false,"now":…,"maxAge":2678400,
               "maxFutureSkew":600,"stepCount":…,"failedSteps":[],"steps":[…]}
            Each step:
              {"name","section","title","passed","expected":{…},"actual":{…},
               "deviations":[…],"files":[…],…details}
            Seal steps add transport, conversation, messageID, epoch, kid, sizes, visible \
            (what Apple or Google saw) and plaintextChecked; open steps add received (the \
            'pushseal open' result). Files are relative to directory. expected and actual \
            have the same keys (outcome, reason, duplicate, requiresFetch, \
            truncated, path, plaintextFound, …); a step passed when they are equal and it has \
            no deviations.

            Exit status: 0 when every step behaved as expected; 1 otherwise (the report is \
            still printed, and each difference is named on standard error).

            --postgres <uri> runs the provider side on a shared PostgreSQL key directory \
            instead (tables pushseal_* are created in that database when missing; the \
            conversation conv-demo is replaced): node A creates the directory and its provider \
            key, registers the device and rotates; node B seals for the device with the key from \
            its LISTEN/NOTIFY-invalidated cache, follows the rotation (the delay after the commit \
            is printed) and seals each epoch's key bundle with the provider key and the \
            registration from PostgreSQL alone; the device installs each bundle and opens both \
            payloads through its store (printed as 'pushseal bundle install' and 'pushseal open \
            --store' print them). Files: provider.master.key, device/ and device.master.key, \
            payload-N.json and bundle-N.txt. One line per step; not with --json.
            """,
        options: [
            directory,
            postgres,
            CommonOptions.json,
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let postgres = try arguments[Self.postgres]
        if let postgres {
            guard Companion.isConnectionURI(postgres) else {
                throw .usage("'--postgres <uri>' takes a connection URI starting with postgresql:// or postgres://.")
            }
            if arguments[CommonOptions.json] { throw .usage("'--json' reports the SQLite walk-through; '--postgres <uri>' prints one line per step.") }
        }
        let workspace: DemoWorkspace
        if let directory = try arguments[Self.directory] {
            workspace = try DemoWorkspace.kept(directory.path)
        } else {
            workspace = try DemoWorkspace.temporary()
        }
        if let postgres {
            let backend = try context.postgreSQLBackend()
            var stopped: CLIError?
            do throws(CLIError) {
                try DemoPostgreSQL(workspace: workspace, backend: backend, uri: postgres).run { line in context.write(line + "\n") }
            } catch {
                stopped = error
            }
            if !workspace.removeIfTemporary() {
                context.warn("could not remove every file of the temporary directory '\(workspace.root)'")
            }
            if let stopped { throw stopped }
            return .success
        }

        var demo = DemoRun(workspace: workspace, now: systemClock())
        var stopped: CLIError?
        do { try demo.run() } catch { stopped = error }
        if !workspace.removeIfTemporary() {
            context.warn("could not remove every file of the temporary directory '\(workspace.root)'")
        }

        let (report, error) = conclude(demo, stoppedBy: stopped, json: arguments[CommonOptions.json])
        context.write(report)
        if let error { throw error }
        return .success
    }

    /// The report to print, and the error to exit with: the one that stopped the demo, or a
    /// summary of the steps that did not behave as expected (each difference as a hint), or nil
    /// when every step passed.
    static func conclude(_ demo: DemoRun, stoppedBy stopped: CLIError?, json: Bool) -> (report: String, error: CLIError?) {
        let failure = stopped.map { "\($0)" }
        let report = json ? DemoJSONReport.render(demo, stoppedBy: failure) : DemoTextReport.render(demo, stoppedBy: failure)
        if let stopped { return (report, stopped) }
        let failed = demo.steps.filter { !$0.passed }
        guard failed.isEmpty else {
            return (report, .failure(Diagnostic(
                "\(failed.count) of \(demo.steps.count) demo steps did not behave as expected",
                hints: failed.flatMap { step in step.deviations.map { "\(step.name): \($0)" } })))
        }
        return (report, nil)
    }
}

import PushSealCLIKit
import PushSealCore

/// `pushseal demo`: the end-to-end walk-through (the implementation is in `Demo/`).
enum DemoCommand {
    static let directory = Option<FilePath?>(
        "dir", valueName: "dir", abstract: "Work in this directory (kept) instead of a temporary one (removed).")

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
            """,
        options: [
            directory,
            CommonOptions.json,
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let workspace: DemoWorkspace
        if let directory = try arguments[Self.directory] {
            workspace = try DemoWorkspace.kept(directory.path)
        } else {
            workspace = try DemoWorkspace.temporary()
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

import PushSealCore
import PushSealReceiver
import PushSealJSON

/// The demo for machines: one compact JSON document on one line.
///
/// ```
/// {"demo":"pushseal","version":1,"passed":true,"error":null,"directory":"/tmp/pushseal-demo.x",
///  "kept":false,"now":1767268800,"maxAge":2678400,"maxFutureSkew":600,"stepCount":24,"failedSteps":[],
///  "steps":[{"name":"seal-chat-message","section":"notifications","title":"…","passed":true,
///            "expected":{"path":"complete",…},"actual":{"path":"complete",…},"deviations":[],
///            "files":["payloads/01-chat-message.apns.json"], …step details…}, …]}
/// ```
///
/// `expected` and `actual` always have the same keys; a step passed when they are equal and
/// `deviations` is empty. Step details: seal steps add `transport`, `conversation`,
/// `messageID`, `epoch`, `kid`, `sizes` (`content`, `padded`, `envelope`, `wire`, `payload`,
/// `limited`, `limit`), `visible` (`alert`, `threadID`, `kid`: what Apple or Google saw) and
/// `plaintextChecked` (the fields searched for; the fact `plaintextFound` lists those found,
/// expected `[]`); open steps add `received` (the `pushseal open`
/// result object); provisioning steps add `conversation`, `epoch`, `kid`. Files are relative to
/// `directory`, which no longer exists when `kept` is false.
enum DemoJSONReport {
    static func render(_ run: DemoRun, stoppedBy failure: String?) -> String {
        let failed = run.steps.filter { !$0.passed }
        let document = DemoJSON.object([
            ("demo", .string("pushseal")),
            ("version", DemoJSON.integer(1)),
            ("passed", .bool(failure == nil && failed.isEmpty)),
            ("error", DemoJSON.string(failure)),
            ("directory", .string(run.workspace.root)),
            ("kept", .bool(!run.workspace.isTemporary)),
            ("now", DemoJSON.integer(run.now)),
            ("maxAge", DemoJSON.integer(ReceiverConfiguration.defaultMaximumAge)),
            ("maxFutureSkew", DemoJSON.integer(ReceiverConfiguration.defaultMaximumFutureSkew)),
            ("stepCount", DemoJSON.integer(run.steps.count)),
            ("failedSteps", .array(failed.map { .string($0.name) })),
            ("steps", .array(run.steps.map(value))),
        ])
        var writer = JSONWriter()
        writer.append(document)
        return writer.text + "\n"
    }

    static func value(of step: DemoStep) -> JSONValue {
        var members: [JSONObject.Member] = [
            .init(name: "name", value: .string(step.name)),
            .init(name: "section", value: .string(step.section.rawValue)),
            .init(name: "title", value: .string(step.title)),
            .init(name: "passed", value: .bool(step.passed)),
            .init(name: "expected", value: .object(JSONObject(members: step.facts.map { .init(name: $0.name, value: $0.expected) }))),
            .init(name: "actual", value: .object(JSONObject(members: step.facts.map { .init(name: $0.name, value: $0.actual) }))),
            .init(name: "deviations", value: .array(step.deviations.map(JSONValue.string))),
            .init(name: "files", value: .array(step.files.map(JSONValue.string))),
        ]
        members += step.details
        return .object(JSONObject(members: members))
    }
}

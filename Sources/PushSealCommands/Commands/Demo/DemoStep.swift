import PushSealCore
import PushSealJSON

/// One step of the demo: what it was expected to do, what it did, and what it shows.
///
/// Every step carries a list of ``Fact``s, each an expected and an actual JSON value; the step
/// passed when every pair is equal and no ``problems`` were found. The text report prints the
/// ``rows``; the JSON report prints the facts as two objects with the same keys (`expected`,
/// `actual`) plus the ``details``.
struct DemoStep {
    /// The part of the walk-through a step belongs to (the text report's headings).
    enum Section: String, CaseIterable {
        case stores
        case provisioning
        case notifications
        case fallbacks

        /// The heading in the text report.
        var heading: String {
            switch self {
            case .stores: "Key stores"
            case .provisioning: "Provisioning: keys travel from the provider to the device"
            case .notifications: "Notifications: sealed on the provider, opened on the device"
            case .fallbacks: "Fallbacks that matter"
            }
        }
    }

    /// One checked property: what the demo expects, what happened.
    struct Fact {
        let name: String
        let expected: JSONValue
        let actual: JSONValue

        var matches: Bool { expected == actual }
    }

    /// Stable machine name, kebab-case (`open-chat-message`).
    let name: String
    let section: Section
    /// One line for people (`Chat message, Alice ↔ Bob → APNs`).
    let title: String
    var facts: [Fact] = []
    /// Files this step wrote or read, relative to the demo directory.
    var files: [String] = []
    /// Labelled lines for the text report.
    var rows: [(label: String, value: String)] = []
    /// Extra members of the step's JSON object.
    var details: [JSONObject.Member] = []
    /// Deviations that are not a single fact (e.g. which plaintext strings were found).
    var problems: [String] = []

    init(_ name: String, section: Section, title: String) {
        self.name = name
        self.section = section
        self.title = title
    }

    /// True when the step behaved exactly as expected.
    var passed: Bool { problems.isEmpty && facts.allSatisfy(\.matches) }

    /// Each deviation as a sentence: `reason: expected "stale", got "authentication_failed"`.
    var deviations: [String] {
        facts.filter { !$0.matches }.map { "\($0.name): expected \($0.expected.compactText), got \($0.actual.compactText)" }
            + problems
    }

    // MARK: Building

    mutating func expect(_ name: String, _ expected: JSONValue, _ actual: JSONValue) {
        facts.append(Fact(name: name, expected: expected, actual: actual))
    }

    mutating func expect(_ name: String, _ expected: String?, _ actual: String?) {
        expect(name, expected.map(JSONValue.string) ?? .null, actual.map(JSONValue.string) ?? .null)
    }

    mutating func expect(_ name: String, _ expected: Bool, _ actual: Bool) {
        expect(name, JSONValue.bool(expected), JSONValue.bool(actual))
    }

    mutating func expect(_ name: String, _ expected: Int64, _ actual: Int64?) {
        expect(name, DemoJSON.integer(expected), actual.map(DemoJSON.integer) ?? .null)
    }

    mutating func row(_ label: String, _ value: String) {
        rows.append((label, value))
    }

    mutating func detail(_ name: String, _ value: JSONValue) {
        details.append(.init(name: name, value: value))
    }
}

/// Small constructors for JSON values.
enum DemoJSON {
    static func integer(_ value: Int64) -> JSONValue { .number(String(value)) }
    static func integer(_ value: Int) -> JSONValue { .number(String(value)) }
    static func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject(members: members.map { JSONObject.Member(name: $0.0, value: $0.1) }))
    }
}

import PushSealCore
import PushSealReceiver
import PushSealJSON

/// The `pushseal open` result object (DESIGN.md §7), also used by `demo --json`:
/// `{"outcome","reason","duplicate","content"}` plus `conflict`, `requiresFetch`, `truncated`, `keyBundle` (the in-band
/// bundle's outcome code, only when the payload carried one) and, for fallbacks, `detail`.
enum ReceivedNotificationJSON {
    static func value(of notification: ReceivedNotification) -> JSONValue {
        var members: [JSONObject.Member] = [
            .init(name: "outcome", value: .string(notification.outcome.rawValue)),
            .init(name: "reason", value: notification.reason.map { .string($0.rawValue) } ?? .null),
            .init(name: "duplicate", value: .bool(notification.isDuplicate)),
            .init(name: "conflict", value: .bool(notification.isConflict)),
            .init(name: "requiresFetch", value: .bool(notification.requiresFetch)),
            .init(name: "truncated", value: .bool(notification.isTruncated)),
        ]
        if let bundle = notification.keyBundle {
            members.append(.init(name: "keyBundle", value: .string(bundle.code)))
            if case let .refused(error) = bundle { members.append(.init(name: "keyBundleDetail", value: .string(error.description))) }
        }
        if notification.outcome == .decrypted, let content = notification.content {
            members.append(.init(name: "content", value: contentValue(content)))
        } else {
            members.append(.init(name: "content", value: fallbackValue(notification)))
            if let detail = notification.diagnostic { members.append(.init(name: "detail", value: .string(detail))) }
        }
        return .object(JSONObject(members: members))
    }

    /// The decrypted content as its deterministic JSON object.
    static func contentValue(_ content: NotificationContent) -> JSONValue {
        var writer = JSONWriter()
        content.writeJSON(to: &writer)
        // The writer's own output is strict JSON; parsing it back cannot fail.
        return (try? JSONParser.parse(writer.bytes)) ?? .null
    }

    /// The fallback text shown instead of the content.
    static func fallbackValue(_ notification: ReceivedNotification) -> JSONValue {
        var members: [JSONObject.Member] = []
        if let title = notification.title { members.append(.init(name: "title", value: text(title))) }
        if let subtitle = notification.subtitle { members.append(.init(name: "subtitle", value: text(subtitle))) }
        members.append(.init(name: "body", value: text(notification.body)))
        return .object(JSONObject(members: members))
    }

    /// Literal text as a string; a localized text as `{"loc-key","loc-args"}`.
    static func text(_ text: NotificationText) -> JSONValue {
        switch text {
        case let .plain(value):
            .string(value)
        case let .localized(key, arguments):
            .object(JSONObject(members: [
                .init(name: "loc-key", value: .string(key)),
                .init(name: "loc-args", value: .array(arguments.map { .string($0) })),
            ]))
        }
    }
}

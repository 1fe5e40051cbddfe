public import PushSealCore
import PushSealJSON

/// One line of the JSON-lines batch contract (`pushseal seal --batch`; Docs/PROVIDER.md):
/// either a content object, or a request wrapper
/// `{"content":{…},"key":"<base64url K>","device":"<base64url device key id>","fcm_token":"…","collapse_id":"…","headers":{…}}`
/// whose members other than `content` are optional. A line is a wrapper exactly when its top-level object has
/// a `content` member and no `cid` member.
public struct SealRequestLine: Sendable {
    /// The content to seal.
    public var content: NotificationContent
    /// The key for this line (wrapper `key`), overriding the command's key source: the
    /// device's own key.
    public var key: ConversationKey?
    /// The recipient device for this line (wrapper `device`, its device key id): the line is
    /// sealed under that device's key K_d, derived from the conversation's current key.
    public var device: KeyID?
    /// The FCM registration token for this line (wrapper `fcm_token`).
    public var fcmToken: String?
    /// The `apns-collapse-id` for this line (wrapper `collapse_id`).
    public var collapseID: String?
    /// Per-message headers for this line (wrapper `headers`: `apns-priority`, `apns-expiration`,
    /// `apns-push-type`, `apns-collapse-id`, `apns-topic`, `android.priority`, `android.ttl`).
    public var headers = MessageHeaders()

    /// Parses one line (without its line terminator; a trailing CR is tolerated). Content
    /// problems are ``ProviderError/invalidContent(_:)``; wrapper problems are
    /// ``ProviderError/invalidOption(field:detail:)``.
    public init(parsing line: some Collection<UInt8>) throws(ProviderError) {
        var bytes = Array(line)
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maximumDepth: NotificationContent.maximumNestingDepth + 1)
        } catch {
            throw .invalidContent(.invalidJSON(error))
        }
        guard case let .object(object) = value else { throw .invalidContent(.notAnObject) }
        guard object["cid"] == nil, let wrapped = object["content"] else {
            content = try Self.content(object)
            return
        }
        guard case let .object(contentObject) = wrapped else {
            throw .invalidOption(field: "content", detail: "must be a content object")
        }
        content = try Self.content(contentObject)
        for member in object.members {
            switch member.name {
            case "content": continue
            case "key":
                guard case let .string(text) = member.value else { throw .invalidOption(field: "key", detail: "must be a base64url string") }
                do {
                    key = try ConversationKey(rawBytes: Base64URL.decode(text))
                } catch {
                    throw .invalidOption(field: "key", detail: "must be 32 bytes of base64url without padding (\(error))")
                }
            case "device":
                guard case let .string(text) = member.value, let id = KeyID(base64URL: text) else {
                    throw .invalidOption(field: "device", detail: "must be a device key id: 16 bytes of base64url without padding")
                }
                device = id
            case "fcm_token":
                guard case let .string(text) = member.value else { throw .invalidOption(field: "fcm_token", detail: "must be a string") }
                fcmToken = text
            case "collapse_id":
                guard case let .string(text) = member.value else { throw .invalidOption(field: "collapse_id", detail: "must be a string") }
                collapseID = text
            case "headers":
                guard case let .object(headerObject) = member.value else { throw .invalidOption(field: "headers", detail: "must be an object of header names and values") }
                headers = try MessageHeaders(object: headerObject)
            default:
                throw .invalidOption(field: member.name, detail: "unknown request member (expected content, key, device, fcm_token, collapse_id, headers)")
            }
        }
    }

    private static func content(_ object: JSONObject) throws(ProviderError) -> NotificationContent {
        do {
            return try NotificationContent(object: object)
        } catch {
            throw .invalidContent(error)
        }
    }
}

extension ProviderError {
    /// The JSON-lines error object for this error:
    /// `{"error":{"line":N,"code":"<code>","message":"<description>"}}` (`line` is 1-based and
    /// omitted when nil). One line, no trailing newline.
    public func jsonLine(line: Int?) -> [UInt8] {
        var writer = JSONWriter(capacity: 96)
        writer.appendRaw("{\"error\":{")
        if let line {
            writer.appendRaw("\"line\":")
            writer.appendInteger(Int64(line))
            writer.appendRaw(",")
        }
        writer.appendRaw("\"code\":")
        writer.appendString(code)
        writer.appendRaw(",\"message\":")
        writer.appendString(description)
        writer.appendRaw("}}")
        return writer.bytes
    }
}

extension SealRequestLine {
    /// The longest line of the JSON-lines contract (1 MiB): a ``JSONLineReader`` for requests
    /// is made with it, and longer lines fail without being held in memory.
    public static let maximumByteCount = 1 << 20
}

/// How much of a JSON-lines stream is sealed at once
/// (``NotificationSealer/seal(lines:keyProvider:limits:item:outcomes:)``): the lines already
/// read, up to these bounds, are sealed together on all cores before their outcomes are handed on.
public struct SealLineLimits: Sendable, Equatable {
    /// The most lines sealed together (default 256).
    public var lines: Int
    /// The most line bytes sealed together (default 1 MiB).
    public var bytes: Int

    /// Limits; both must be at least 1.
    public init(lines: Int = 256, bytes: Int = 1 << 20) {
        precondition(lines >= 1 && bytes >= 1, "SealLineLimits: lines and bytes must be at least 1")
        self.lines = lines
        self.bytes = bytes
    }

    /// A byte count for people: `1 MiB`, `64 KiB`, `100 bytes`.
    static func sizeText(_ bytes: Int) -> String {
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }
}

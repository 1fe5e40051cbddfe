import PushSealJSON

/// Per-message push-service headers (APNSwift and firebase-admin take these per message too):
/// `apns-priority`, `apns-expiration`, `apns-push-type`, `apns-collapse-id` and an `apns-topic`
/// override for APNs (and for an iOS device through FCM, in the message's `apns.headers`);
/// `android.priority` and `android.ttl` for an Android FCM message. Applied on top of the
/// command's or caller's ``APNsOptions`` / ``FCMOptions`` before sealing; every value is
/// checked here, so a bad one fails its own notification only.
public struct MessageHeaders: Sendable, Equatable {
    /// The APNs push types Apple documents (`apns-push-type`).
    public static let apnsPushTypes: Set<String> = [
        "alert", "background", "voip", "complication", "fileprovider", "mdm", "location", "liveactivity", "pushtotalk", "widgets", "controls",
    ]

    /// `apns-priority`.
    public var apnsPriority: APNsOptions.Priority?
    /// `apns-expiration`: UNIX time (seconds), 0 for "try once, never store".
    public var apnsExpiration: Int64?
    /// `apns-push-type`. A sealed PushSeal notification is an `alert` (its notification service
    /// extension runs for alert pushes with `mutable-content` only), so that is the only value
    /// sealing accepts; other types are for payloads sealed elsewhere.
    public var apnsPushType: String?
    /// `apns-collapse-id` (at most 64 bytes of visible ASCII; visible to Apple: keep it opaque).
    public var apnsCollapseID: String?
    /// `apns-topic`, overriding the configured one (another app of the team, a `.voip` topic).
    public var apnsTopic: String?
    /// `android.priority`.
    public var androidPriority: FCMOptions.AndroidPriority?
    /// `android.ttl`, in seconds (`0...2419200`).
    public var androidTimeToLive: Int64?

    /// No overrides.
    public init() {}

    /// Whether any APNs header is set.
    public var hasAPNsHeaders: Bool {
        apnsPriority != nil || apnsExpiration != nil || apnsPushType != nil || apnsCollapseID != nil || apnsTopic != nil
    }

    /// Whether any Android header is set.
    public var hasAndroidHeaders: Bool { androidPriority != nil || androidTimeToLive != nil }

    /// Parses `{"apns-priority":"5","apns-expiration":1700003600,"android.ttl":"3600s",…}`:
    /// numbers as JSON numbers or strings, every member checked. An unknown name or a bad value
    /// is ``ProviderError/invalidOption(field:detail:)`` naming the header.
    package init(object: JSONObject) throws(ProviderError) {
        for member in object.members {
            let text: String
            switch member.value {
            case let .string(string): text = string
            case let .number(literal): text = literal
            default: throw .invalidOption(field: member.name, detail: "must be a string or a number")
            }
            try set(member.name.lowercased(), text)
        }
    }

    /// Sets one header from its text, checked (the names listed above).
    public mutating func set(_ name: String, _ value: String) throws(ProviderError) {
        switch name {
        case "apns-priority", "apns-expiration", "apns-push-type", "apns-collapse-id", "apns-topic":
            try Self.validateAPNsHeader(name: name, value: value)
            switch name {
            case "apns-priority": apnsPriority = value == "5" ? .conservePower : .immediate
            case "apns-expiration": apnsExpiration = Int64(value)
            case "apns-push-type": apnsPushType = value
            case "apns-collapse-id": apnsCollapseID = value
            default: apnsTopic = value
            }
        case "android.priority":
            guard let priority = FCMOptions.AndroidPriority(rawValue: value) else {
                throw .invalidOption(field: name, detail: "must be high or normal")
            }
            androidPriority = priority
        case "android.ttl":
            let digits = value.hasSuffix("s") ? String(value.dropLast()) : value
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seconds = Int64(digits),
                seconds <= FCMOptions.maximumTimeToLive
            else {
                throw .invalidOption(field: name, detail: "must be 0 to \(FCMOptions.maximumTimeToLive) seconds (\"3600s\" or 3600)")
            }
            androidTimeToLive = seconds
        default:
            throw .invalidOption(
                field: name,
                detail: "unknown header (expected apns-priority, apns-expiration, apns-push-type, apns-collapse-id, apns-topic, android.priority, android.ttl)")
        }
    }

    /// Checks one APNs request header as Apple defines it: `apns-priority` 1, 5 or 10;
    /// `apns-expiration` a decimal UNIX time; `apns-push-type` one of ``apnsPushTypes``;
    /// `apns-collapse-id` 1 to 64 bytes and `apns-topic` 1 to 255 bytes of visible ASCII.
    /// Other names are not checked here.
    public static func validateAPNsHeader(name: String, value: String) throws(ProviderError) {
        switch name {
        case "apns-priority":
            guard ["1", "5", "10"].contains(value) else { throw .invalidOption(field: name, detail: "must be 10 (now), 5 (power-aware) or 1 (lowest)") }
        case "apns-expiration":
            guard !value.isEmpty, value.utf8.count <= 12, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw .invalidOption(field: name, detail: "must be a UNIX time in seconds (0: try once, never store)")
            }
        case "apns-push-type":
            guard apnsPushTypes.contains(value) else {
                throw .invalidOption(field: name, detail: "must be one of \(apnsPushTypes.sorted().joined(separator: ", "))")
            }
        case "apns-collapse-id":
            let count = value.utf8.count
            guard count <= APNsOptions.maximumCollapseIDByteCount else { throw .collapseIDTooLong(byteCount: count) }
            guard count >= 1, APNsOptions.isVisibleASCII(value) else { throw .invalidCollapseID("must be 1 to 64 bytes of visible ASCII") }
        case "apns-topic":
            let count = value.utf8.count
            guard count >= 1, count <= APNsOptions.maximumTopicByteCount, APNsOptions.isVisibleASCII(value) else {
                throw .invalidTopic("must be 1 to \(APNsOptions.maximumTopicByteCount) bytes of visible ASCII")
            }
        default:
            break
        }
    }

    /// `options` with the APNs headers applied (for an APNs notification, or the `apns` block of
    /// an iOS device's FCM message). Android headers here, or a push type other than `alert`,
    /// are refused.
    public func applied(to options: APNsOptions) throws(ProviderError) -> APNsOptions {
        guard !hasAndroidHeaders else {
            throw .invalidOption(field: androidPriority != nil ? "android.priority" : "android.ttl", detail: "is for FCM messages to Android devices (transport fcm)")
        }
        if let apnsPushType, apnsPushType != "alert" {
            throw .invalidOption(
                field: "apns-push-type",
                detail: "must be alert for a sealed notification (the notification service extension that opens it runs for alert pushes only)")
        }
        var options = options
        if let apnsPriority { options.priority = apnsPriority }
        if let apnsExpiration { options.expiration = apnsExpiration == 0 ? .deliverOnce : .at(apnsExpiration) }
        if let apnsCollapseID { options.collapseID = apnsCollapseID }
        if let apnsTopic { options.topic = apnsTopic }
        return options
    }

    /// `options` with the headers applied: the Android ones to an Android message, the APNs ones
    /// to the `apns` block of an iOS device's message (`applied(to:)` above); a header
    /// of the other kind is refused.
    public func applied(to options: FCMOptions) throws(ProviderError) -> FCMOptions {
        var options = options
        if let apns = options.apns {
            options.apns = try applied(to: apns)
            return options
        }
        guard !hasAPNsHeaders else {
            throw .invalidOption(field: "apns headers", detail: "are for APNs and for iOS devices through FCM (transport apns or fcm-apns)")
        }
        if let androidPriority { options.priority = androidPriority }
        if let androidTimeToLive { options.timeToLive = androidTimeToLive }
        return options
    }
}

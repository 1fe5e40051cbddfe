public import PushSealCore
public import PushSealProvider

/// One sealed notification to send: where it goes and the exact body bytes (resent unchanged
/// on every retry).
public struct PushNotification: Sendable, Equatable {
    /// The service and, for APNs, the device and request headers.
    public enum Destination: Sendable, Equatable {
        /// `POST /3/device/<deviceToken>` with these headers (`APNsRequest.headers()`).
        case apns(deviceToken: String, headers: [HTTPHeader])
        /// `POST <send URL>`; the device's registration token is inside the message body.
        case fcm
    }

    /// The caller's identifier, echoed in the ``DeliveryReport`` (`pushseal send` uses line numbers).
    public var tag: Int
    /// Where it goes.
    public var destination: Destination
    /// The exact request body.
    public var body: [UInt8]

    /// An APNs notification sealed by `NotificationSealer`; the request must have a topic.
    public init(tag: Int, apns request: APNsRequest, deviceToken: String) throws(DeliveryError) {
        let headers: [HTTPHeader]
        do {
            headers = try request.headers()
        } catch {
            throw .invalidOption(field: "apns-topic", detail: "missing: APNs needs the app's bundle id (APNsOptions.topic)")
        }
        try self.init(tag: tag, apnsBody: request.body, deviceToken: deviceToken, headers: headers)
    }

    /// Seals `content` for one device and makes its APNs notification: under the device's own
    /// key K_d, derived from the conversation key and the device key id (SPEC §4.4; through
    /// `cache` when given), with `options` (topic, priority, expiration, collapse id).
    public init(
        tag: Int, sealing content: NotificationContent, conversationKey: ConversationKey, device: KeyID, sealer: NotificationSealer,
        apns options: APNsOptions, deviceToken: String, cache: DeviceKeyCache? = nil
    ) throws(DeliveryError) {
        let request: APNsRequest
        do {
            request = try sealer.seal(content, conversationKey: conversationKey, device: device, options: options, cache: cache)
        } catch {
            throw .sealing(error)
        }
        try self.init(tag: tag, apns: request, deviceToken: deviceToken)
    }

    /// Seals `content` for one device and makes its FCM message (an Android data message, or
    /// the `apns` form for an iOS device when `options.apns` is set); the registration token is
    /// `options.token`.
    public init(
        tag: Int, sealing content: NotificationContent, conversationKey: ConversationKey, device: KeyID, sealer: NotificationSealer,
        fcm options: FCMOptions, cache: DeviceKeyCache? = nil
    ) throws(DeliveryError) {
        do {
            self.init(tag: tag, fcm: try sealer.seal(content, conversationKey: conversationKey, device: device, options: options, cache: cache))
        } catch {
            throw .sealing(error)
        }
    }

    /// An APNs body sealed elsewhere (e.g. by `pushseal seal --with-headers`), with its headers;
    /// `apns-priority`, `apns-expiration`, `apns-push-type`, `apns-collapse-id` and `apns-topic`
    /// are checked (`MessageHeaders.validateAPNsHeader(name:value:)`). For a notification
    /// sealed here, per-message headers are the `APNsOptions` / `FCMOptions` it is sealed with
    /// (`MessageHeaders.applied(to:)` applies a parsed set).
    public init(tag: Int, apnsBody body: [UInt8], deviceToken: String, headers: [HTTPHeader]) throws(DeliveryError) {
        try APNsConfiguration.validate(deviceToken: deviceToken)
        guard headers.contains(where: { $0.name == "apns-topic" }) else {
            throw .invalidOption(field: "apns-topic", detail: "missing: APNs needs the app's bundle id")
        }
        for header in headers {
            guard Self.isHeaderSafe(header) else {
                throw .invalidOption(field: "header \(header.name)", detail: "names and values must be visible ASCII (values may hold spaces)")
            }
            do {
                try MessageHeaders.validateAPNsHeader(name: header.name, value: header.value)
            } catch {
                guard case let .invalidOption(_, detail) = error else { throw .invalidOption(field: header.name, detail: "\(error)") }
                throw .invalidOption(field: header.name, detail: detail)
            }
        }
        self.tag = tag
        self.destination = .apns(deviceToken: deviceToken, headers: headers)
        self.body = body
    }

    /// An FCM HTTP v1 message sealed by `NotificationSealer` (Android data message or the
    /// `apns` form for iOS devices).
    public init(tag: Int, fcm message: FCMMessage) {
        self.init(tag: tag, fcmBody: message.body)
    }

    /// An FCM HTTP v1 request body `{"message":{…}}` sealed elsewhere.
    public init(tag: Int, fcmBody body: [UInt8]) {
        self.tag = tag
        self.destination = .fcm
        self.body = body
    }

    private static func isHeaderSafe(_ header: HTTPHeader) -> Bool {
        !header.name.isEmpty && header.name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }
            && header.value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}

public import PushSealCore

/// The FCM HTTP v1 message around the sealed data: the registration token, Android priority and
/// time to live. The message is data-only (no `notification` block), so the app's own messaging
/// service receives it in every app state, decrypts and displays.
///
/// With ``apns`` set, the message is for an iOS device reached through FCM instead: an `apns`
/// block with the APNs headers and an APNs payload (placeholder alert, `mutable-content: 1`,
/// the envelope under `pushseal`), which the app's notification service extension opens like a
/// direct APNs notification.
public struct FCMOptions: Sendable, Equatable {
    /// Longest accepted registration token, in bytes (real tokens are a few hundred).
    public static let maximumTokenByteCount = 4096
    /// Longest FCM time to live: 28 days.
    public static let maximumTimeToLive: Int64 = 2_419_200

    /// `android.priority`.
    public enum AndroidPriority: String, Sendable, Equatable {
        /// `high`: wakes the device; needed for a data message that shows a notification. Default.
        case high
        /// `normal`: may be delayed (Doze).
        case normal
    }

    /// `message.token`: the device's registration token.
    public var token: String
    /// `message.android.priority`.
    public var priority: AndroidPriority
    /// `message.android.ttl` in whole seconds, `0...2419200` (Android messages only).
    public var timeToLive: Int64
    /// For an iOS device: the placeholder, outer fields and headers of the `apns` block. nil
    /// (the default): an Android data message.
    public var apns: APNsOptions?
    /// A key bundle to carry in band (SPEC §16.7) as the data member `"pushseal-bundle"` (for the
    /// iOS form, in the APNs payload, unless ``apns`` has its own). Counted against the limit first.
    public var keyBundle: KeyBundle?

    /// Options for one device; by default high priority and the longest time to live (28 days).
    public init(token: String, priority: AndroidPriority = .high, timeToLive: Int64 = FCMOptions.maximumTimeToLive, apns: APNsOptions? = nil) {
        self.token = token
        self.priority = priority
        self.timeToLive = timeToLive
        self.apns = apns
    }

    /// Checks the token's shape and the time to live. A token must be 1 to 4096 bytes of visible
    /// ASCII (0x21–0x7E) other than `"` and `\`: no whitespace, no quotes, no control characters,
    /// nothing that would need escaping in JSON.
    public func validate() throws(ProviderError) {
        let count = token.utf8.count
        guard count >= 1 else { throw .invalidFCMToken("empty") }
        guard count <= Self.maximumTokenByteCount else {
            throw .invalidFCMToken("\(count) bytes, more than \(Self.maximumTokenByteCount)")
        }
        var token = token
        let badOffset = token.withUTF8 { bytes -> Int? in
            for offset in 0..<bytes.count {
                let byte = bytes[offset]
                if byte < 0x21 || byte > 0x7E || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return offset }
            }
            return nil
        }
        if let badOffset {
            throw .invalidFCMToken("byte \(badOffset) is not a token character (visible ASCII other than '\"' and '\\')")
        }
        guard timeToLive >= 0, timeToLive <= Self.maximumTimeToLive else {
            throw .invalidOption(field: "ttl", detail: "must be 0 to \(Self.maximumTimeToLive) seconds")
        }
        try apns?.validate()
    }
}

/// A piece of visible notification text: literal, or a localization key the device resolves.
public enum NotificationText: Sendable, Equatable {
    /// Literal text.
    case plain(String)
    /// A key into the app's `Localizable.strings` with its format arguments, as in an APNs alert's
    /// `loc-key`/`loc-args` (`title-loc-key`, `subtitle-loc-key`). On iOS the adapter resolves it with
    /// `NSString.localizedUserNotificationString(forKey:arguments:)`.
    case localized(key: String, arguments: [String])

    /// The literal text, or the key of a localized text (what a platform without the app's string
    /// tables, such as the CLI, can print).
    public var unlocalizedText: String {
        switch self {
        case let .plain(text): text
        case let .localized(key, _): key
        }
    }
}

/// The text a receiver shows instead of the decrypted content: title, subtitle and body.
///
/// It is built only from the payload's outer placeholder or from the app's configuration, never
/// from decrypted bytes.
public struct FallbackText: Sendable, Equatable {
    // Optional properties are spelled `Optional<T>`: a `T?` stored property is implicitly
    // initialized to nil, which made every initializer write it twice and copy the whole value.
    /// The title, if any.
    public var title: Optional<NotificationText>
    /// The subtitle, if any.
    public var subtitle: Optional<NotificationText>
    /// The body.
    public var body: NotificationText

    /// Fallback text from its parts.
    public init(title: NotificationText? = nil, subtitle: NotificationText? = nil, body: NotificationText) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
    }

    /// Literal fallback text.
    public init(title: String?, body: String) {
        self.init(title: title.map(NotificationText.plain), body: .plain(body))
    }

    /// The default: no title, body "New message" (SPEC 10.3).
    public static let standard = FallbackText(title: nil, body: "New message")
}

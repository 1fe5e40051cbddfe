import PushSealCore

/// What a receiver hands to the platform to display: the decrypted content, or fallback text with
/// a reason. Never partial plaintext: a fallback is built only from the payload's outer fields and
/// the app's configuration.
public struct ReceivedNotification: Sendable, Equatable {
    /// Whether the content was decrypted.
    public enum Outcome: String, Sendable, Equatable {
        /// Every check passed; the fields come from the decrypted content.
        case decrypted
        /// Something was wrong (see ``ReceivedNotification/reason``), or the deadline expired first
        /// (reason nil); the text is fallback text.
        case fallback
    }

    /// Where ``title``, ``subtitle`` and ``body`` come from.
    public enum TextSource: String, Sendable, Equatable {
        /// The decrypted content.
        case content
        /// The payload's placeholder alert (`aps.alert`), which the platform already shows as is.
        case payloadPlaceholder
        /// The app's configured fallback text (``ReceiverConfiguration/fallbackText``).
        case appFallback
    }

    // Optional properties are spelled `Optional<T>` on purpose: a `T?` stored property is
    // implicitly initialized to nil, so each initializer's assignment became a second write and
    // the compiler assembled the whole result in a temporary that it then copied (a retain and a
    // release of every field per result).

    /// Decrypted or fallback.
    public var outcome: Outcome
    /// Why this is a fallback (nil when decrypted, and for the best attempt delivered at the deadline).
    public var reason: Optional<ReasonCode>
    /// Decrypted, but `(cid, mid)` was already in the duplicate log. Always false for a fallback.
    public var isDuplicate: Bool
    /// The message id was delivered before with a different envelope (always with
    /// ``isDuplicate``): a resend the provider sealed again, or a key holder who used the id
    /// first. Show neither text as authoritative: fetch the message by (cid, mid) (SPEC §10.4).
    public var isConflict: Bool
    /// Decrypted a content-free wake-and-fetch notification: the app must fetch the message
    /// (`cid`, `mid`) from its server. The text is then fallback text.
    public var requiresFetch: Bool
    /// The sender shortened the body (`trunc`).
    public var isTruncated: Bool

    /// Title to show.
    public var title: Optional<NotificationText>
    /// Subtitle to show.
    public var subtitle: Optional<NotificationText>
    /// Body to show.
    public var body: NotificationText
    /// Where the text comes from.
    public var textSource: TextSource

    /// Thread identifier: the content's `thread`, else its `cid`; for a fallback, the payload's
    /// opaque outer `thread-id`, if any.
    public var threadIdentifier: Optional<String>
    /// Action category: the content's `category`; for a fallback, the payload's outer `category`.
    public var category: Optional<String>
    /// Badge: the content's `badge`; for a fallback, the payload's outer `aps.badge`.
    public var badge: Optional<Int64>
    /// The sender, for a communication notification (decrypted only).
    public var sender: Optional<NotificationContent.Sender>
    /// App extras `x` (decrypted only; never trusted for authorization).
    public var extras: [String: String]
    /// `cid` (decrypted only).
    public var conversationID: Optional<String>
    /// `mid` (decrypted only).
    public var messageID: Optional<String>
    /// `ts`, seconds since 1970 (decrypted only).
    public var sentAt: Optional<Int64>
    /// The key id from the envelope header, once the envelope parsed (not secret).
    public var keyID: Optional<KeyID>
    /// A short human-readable explanation of a fallback, for logs. It never contains decrypted
    /// bytes: after decryption it names only the failed check and schema field names.
    public var diagnostic: Optional<String>
    /// The decrypted content (decrypted only).
    public var content: Optional<NotificationContent>
    /// The exact decrypted content bytes, only when
    /// ``ReceiverConfiguration/retainsContentBytes`` is set (decrypted only).
    public var contentBytes: Optional<[UInt8]>

    /// What happened to the payload's in-band key bundle (`pushseal-bundle`, SPEC §16.7): nil
    /// when it carried none (or the envelope was malformed, so it was not looked at).
    public var keyBundle: Optional<KeyBundleOutcome>

    /// True for `not_sealed` while ``ReceiverConfiguration/passesThroughUnsealed`` is set (the
    /// default): the platform should show the notification exactly as it arrived.
    public var isPassThrough: Bool

    /// A decrypted result: every field set once (rather than a fallback value whose fields are
    /// then overwritten one by one).
    /// The text is the content's own (title, subtitle, body as plain text) unless `fallback` is
    /// given (a content-free or textless content).
    init(decrypted content: consuming NotificationContent, fallback: (text: FallbackText, source: TextSource)?, requiresFetch: Bool,
         isDuplicate: Bool, isConflict: Bool, keyID: KeyID, contentBytes: [UInt8]?) {
        outcome = .decrypted
        reason = nil
        self.isDuplicate = isDuplicate
        self.isConflict = isConflict
        self.requiresFetch = requiresFetch
        isTruncated = content.isTruncated
        isPassThrough = false
        if let fallback {
            title = fallback.text.title
            subtitle = fallback.text.subtitle
            body = fallback.text.body
            textSource = fallback.source
        } else {
            title = content.title.map(NotificationText.plain)
            subtitle = content.subtitle.map(NotificationText.plain)
            body = .plain(content.body ?? "")
            textSource = .content
        }
        threadIdentifier = content.thread ?? content.conversationID
        category = content.category
        badge = content.badge
        sender = content.sender
        extras = content.extras
        conversationID = content.conversationID
        messageID = content.messageID
        sentAt = content.sentAt
        self.keyID = keyID
        diagnostic = nil
        self.content = content
        self.contentBytes = contentBytes
        keyBundle = nil
    }

    /// A fallback with the given text and outer fields.
    init(
        fallback text: FallbackText, source: TextSource, reason: ReasonCode?, outer: OuterFields, keyID: KeyID?, diagnostic: String?,
        isPassThrough: Bool = false
    ) {
        outcome = .fallback
        self.reason = reason
        self.isPassThrough = isPassThrough
        isDuplicate = false
        isConflict = false
        requiresFetch = false
        isTruncated = false
        title = text.title
        subtitle = text.subtitle
        body = text.body
        textSource = source
        threadIdentifier = outer.threadIdentifier
        category = outer.category
        badge = outer.badge
        sender = nil
        extras = [:]
        conversationID = nil
        messageID = nil
        sentAt = nil
        self.keyID = keyID
        self.diagnostic = diagnostic
        content = nil
        contentBytes = nil
        keyBundle = nil
    }
}

/// The outcome of installing a payload's in-band key bundle. It never changes how the
/// notification itself is opened.
public enum KeyBundleOutcome: Sendable, Equatable {
    /// The bundle's key was installed into the key source as the conversation's newest epoch.
    case installed
    /// The bundle's key was installed below the newest epoch, already retired.
    case installedRetired
    /// The key was already there.
    case alreadyInstalled
    /// The bundle was refused; the error names the reason (SPEC §16.5).
    case refused(KeyBundleError)

    /// `installed`, `installed_retired`, `already_installed`, or the refusal's reason code.
    public var code: String {
        switch self {
        case .installed: KeyBundleInstallation.installed.rawValue
        case .installedRetired: KeyBundleInstallation.installedRetired.rawValue
        case .alreadyInstalled: KeyBundleInstallation.alreadyInstalled.rawValue
        case let .refused(error): error.reason.rawValue
        }
    }

    /// The outcome of an installation attempt.
    public init(_ result: Result<KeyBundleInstallation, KeyBundleError>) {
        switch result {
        case .success(.installed): self = .installed
        case .success(.installedRetired): self = .installedRetired
        case .success(.alreadyInstalled): self = .alreadyInstalled
        case let .failure(error): self = .refused(error)
        }
    }
}

// Apple-only adapter: NOT compiled in CI here (Linux). Keep it tiny; all logic lives in the
// platform-neutral, tested code (Receiver, ExtensionSession).
#if canImport(UserNotifications) && (os(iOS) || os(macOS) || os(visionOS))
import Dispatch
import PushSealCore
import PushSealReceiver
import Foundation
@preconcurrency import UserNotifications

/// Base class for a Notification Service Extension that opens PushSeal notifications.
///
/// Subclass it in the extension target, override ``makeReceiver()``, and name the subclass as
/// `NSExtensionPrincipalClass` (see Docs/INTEGRATION-IOS.md). Every notification gets one
/// ``ExtensionSession``: the content handler is called exactly once — with the decrypted content,
/// the fallback, the untouched original (`not_sealed`), or the best attempt when
/// `serviceExtensionTimeWillExpire()` comes first.
open class PushSealNotificationService: UNNotificationServiceExtension {
    // One instance may be asked to handle more than one request; a session leaves the list when
    // it delivers, so a process the system reuses for many notifications keeps only those in progress.
    private let sessions = ExtensionSessionRegistry()

    /// The receiver for this extension: typically the shared key store in the App Group with the
    /// app's fallback text. Return nil to deliver every notification unchanged.
    open func makeReceiver() -> Receiver? { nil }

    /// Seconds after arrival past which opening is not started any more (the system allows about 30).
    open var openingDeadline: Int64 { 20 }

    /// Starts an ``ExtensionSession`` for the request and processes it off the calling thread.
    override open func didReceive(
        _ request: UNNotificationRequest,
        withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        // The base class's exact handler type, which is not @Sendable: the session calls it
        // exactly once, from whichever thread delivers first, as the system allows.
        nonisolated(unsafe) let contentHandler = contentHandler
        let original = request.content
        guard let receiver = makeReceiver() else {
            contentHandler(original)
            return
        }
        let payload = ReceiverPayload.userInfo(UserInfoValue.dictionary(bridging: original.userInfo))
        let clock = receiver.configuration.clock
        let session = sessions.makeSession(receiver: receiver, deadline: clock() + openingDeadline, clock: clock) { notification in
            contentHandler(PushSealNotificationContent.content(for: notification, original: original))
        }
        // Off the calling thread, so that serviceExtensionTimeWillExpire can always run.
        // The extension object is not Sendable; it is only used to call `process`, whose default
        // touches nothing but the (thread-safe) session.
        nonisolated(unsafe) let service = self
        DispatchQueue.global(qos: .userInitiated).async {
            guard let parsed = session.prepare(payload) else { return }
            service.process(parsed, in: session)
        }
    }

    /// Opens the prepared payload and delivers the result; runs off the main thread, after the
    /// best attempt was prepared. Override to do more before delivering — for example fetch the
    /// message of a content-free notification — then call `session.complete(with:)`:
    ///
    /// ```swift
    /// override func process(_ parsed: ParsedPayload, in session: ExtensionSession) {
    ///     var result = session.receiver.open(parsed)
    ///     guard result.requiresFetch, let cid = result.conversationID, let mid = result.messageID else {
    ///         session.complete(with: result)
    ///         return
    ///     }
    ///     MessageAPI.fetch(cid, mid) { text in
    ///         if let text { result.body = .plain(text); result.textSource = .content }
    ///         session.complete(with: result)
    ///     }
    /// }
    /// ```
    /// Whatever the override does, `serviceExtensionTimeWillExpire` still delivers exactly once.
    open func process(_ parsed: ParsedPayload, in session: ExtensionSession) {
        session.open(parsed)
    }

    /// Delivers the best attempt of every session that has not delivered yet.
    override open func serviceExtensionTimeWillExpire() {
        sessions.expireAll()
    }
}

/// Maps a ``ReceivedNotification`` onto the content the system displays.
public enum PushSealNotificationContent {
    /// `userInfo` key: "decrypted" or "fallback".
    public static let outcomeKey = "pushseal-outcome"
    /// `userInfo` key: the reason code string, for a fallback with a reason.
    public static let reasonKey = "pushseal-reason"
    /// `userInfo` key: true when (cid, mid) was seen before.
    public static let duplicateKey = "pushseal-duplicate"
    /// `userInfo` key: true for a content-free notification the app must fetch.
    public static let requiresFetchKey = "pushseal-requires-fetch"
    /// `userInfo` key: the decrypted `cid`.
    public static let conversationKey = "pushseal-cid"
    /// `userInfo` key: the decrypted `mid`.
    public static let messageKey = "pushseal-mid"
    /// `userInfo` key: the decrypted `ts` (seconds since 1970).
    public static let sentAtKey = "pushseal-ts"
    /// `userInfo` key: the decrypted extras `x` (`[String: String]`, untrusted).
    public static let extrasKey = "pushseal-x"
    /// `userInfo` key: the in-band key bundle's outcome (SPEC §16.7), `installed`,
    /// `already_installed` or the refusal's reason code; absent when the payload carried none.
    public static let keyBundleKey = "pushseal-key-bundle"

    /// The content to hand to the content handler for `notification`, starting from the
    /// request's `original` content (so sound, attachments and interruption level are kept).
    public static func content(for notification: ReceivedNotification, original: UNNotificationContent) -> UNNotificationContent {
        if notification.isPassThrough { return original }
        guard let content = original.mutableCopy() as? UNMutableNotificationContent else { return original }
        // The payload's own alert is already on `original`, localized by the system: keep it.
        if notification.textSource != .payloadPlaceholder {
            content.title = notification.title.map(string) ?? ""
            content.subtitle = notification.subtitle.map(string) ?? ""
            content.body = string(notification.body)
        }
        content.threadIdentifier = notification.threadIdentifier ?? ""
        content.categoryIdentifier = notification.category ?? ""
        content.badge = notification.badge.map { NSNumber(value: $0) }

        var userInfo = content.userInfo
        userInfo[outcomeKey] = notification.outcome.rawValue
        if let reason = notification.reason { userInfo[reasonKey] = reason.rawValue }
        if let bundle = notification.keyBundle { userInfo[keyBundleKey] = bundle.code }
        if notification.outcome == .decrypted {
            userInfo[duplicateKey] = notification.isDuplicate
            userInfo[requiresFetchKey] = notification.requiresFetch
            if let cid = notification.conversationID { userInfo[conversationKey] = cid }
            if let mid = notification.messageID { userInfo[messageKey] = mid }
            if let ts = notification.sentAt { userInfo[sentAtKey] = NSNumber(value: ts) }
            if !notification.extras.isEmpty { userInfo[extrasKey] = notification.extras }
        }
        content.userInfo = userInfo

        #if canImport(Intents)
        if notification.outcome == .decrypted, let sender = notification.sender,
           let communication = PushSealCommunicationNotification.content(content, notification: notification, sender: sender) {
            return communication
        }
        #endif
        return content
    }

    private static func string(_ text: NotificationText) -> String {
        switch text {
        case let .plain(value): value
        case let .localized(key, arguments): NSString.localizedUserNotificationString(forKey: key, arguments: arguments)
        }
    }
}
#endif

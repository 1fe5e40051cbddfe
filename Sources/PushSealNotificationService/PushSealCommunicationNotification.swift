// Apple-only adapter: NOT compiled in CI here (Linux). Keep it tiny.
#if canImport(UserNotifications) && canImport(Intents) && (os(iOS) || os(macOS) || os(visionOS))
import Foundation
import Intents
import PushSealCore
import PushSealReceiver
@preconcurrency import UserNotifications

/// Turns a decrypted notification with a sender into a communication notification (avatar,
/// sender name, Focus breakthrough) with an `INSendMessageIntent`.
///
/// Needs the Communication Notifications capability and `INSendMessageIntent` in
/// `NSUserActivityTypes` (Docs/INTEGRATION-IOS.md). Apps that have sender avatars should build
/// their own intent (with `INImage`) instead.
public enum PushSealCommunicationNotification {
    /// `content` updated from an incoming-message intent for `sender`, or nil when the system
    /// refuses (then the plain content is shown).
    ///
    /// A title other than the sender's name names a group conversation; the system shows a group
    /// (its name, the group avatar) only when the intent has at least two recipients. Pass the
    /// group's members as `recipients` when the app knows them; when it passes nil for a group,
    /// the recipients are the current user and the sender.
    @available(iOS 15.0, macOS 12.0, visionOS 1.0, *)
    public static func content(
        _ content: UNMutableNotificationContent, notification: ReceivedNotification, sender: NotificationContent.Sender,
        recipients: [INPerson]? = nil
    ) -> UNNotificationContent? {
        let person = INPerson(
            personHandle: INPersonHandle(value: sender.id, type: .unknown),
            nameComponents: nil,
            displayName: sender.name,
            image: nil,
            contactIdentifier: nil,
            customIdentifier: sender.id,
            isMe: false,
            suggestionType: .none
        )
        // A title other than the sender's name names a group conversation.
        var groupName: INSpeakableString?
        if !content.title.isEmpty, !content.title.utf8.elementsEqual((sender.name ?? "").utf8) {
            groupName = INSpeakableString(spokenPhrase: content.title)
        }
        let me = INPerson(
            personHandle: INPersonHandle(value: nil, type: .unknown), nameComponents: nil, displayName: nil,
            image: nil, contactIdentifier: nil, customIdentifier: nil, isMe: true, suggestionType: .none)
        let intent = INSendMessageIntent(
            recipients: recipients ?? (groupName == nil ? nil : [me, person]),
            outgoingMessageType: .outgoingMessageText,
            content: content.body,
            speakableGroupName: groupName,
            conversationIdentifier: notification.threadIdentifier,
            serviceName: nil,
            sender: person,
            attachments: nil
        )
        let interaction = INInteraction(intent: intent, response: nil)
        interaction.direction = .incoming
        interaction.donate(completion: nil)
        return try? content.updating(from: intent)
    }
}
#endif

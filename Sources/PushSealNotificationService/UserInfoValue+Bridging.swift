// Apple-only adapter: NOT compiled in CI here (Linux). Keep it tiny; all logic lives in the
// platform-neutral, tested code.
#if canImport(UserNotifications) && canImport(Foundation)
import Foundation
import PushSealReceiver

extension UserInfoValue {
    /// Converts a notification's `userInfo` (`UNNotificationContent.userInfo`). Entries whose key
    /// is not a string are dropped (an APNs payload's keys are always strings).
    public static func dictionary(bridging userInfo: [AnyHashable: Any]) -> [String: UserInfoValue] {
        var result: [String: UserInfoValue] = [:]
        for (key, value) in userInfo {
            guard let name = key.base as? String else { continue }
            result[name] = UserInfoValue(bridging: value)
        }
        return result
    }

    /// Converts one Foundation property-list value. `NSNumber`s backed by `CFBoolean` become
    /// ``bool(_:)``; other numbers ``number(_:)``; `NSNull`, `NSData`, `NSDate`… ``other``.
    public init(bridging value: Any) {
        switch value {
        case let text as String:
            self = .string(text)
        case let number as NSNumber:
            if CFGetTypeID(number as CFTypeRef) == CFBooleanGetTypeID() {
                self = .bool(number.boolValue)
            } else {
                self = .number(number.doubleValue)
            }
        case let array as [Any]:
            self = .array(array.map(UserInfoValue.init(bridging:)))
        case let dictionary as [AnyHashable: Any]:
            self = .dictionary(UserInfoValue.dictionary(bridging: dictionary))
        default:
            self = .other
        }
    }
}
#endif

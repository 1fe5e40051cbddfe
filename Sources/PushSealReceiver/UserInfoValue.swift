import PushSealCore
import PushSealJSON

/// One value of a notification's `userInfo` dictionary, without Foundation.
///
/// iOS hands a Notification Service Extension the APNs payload as `[AnyHashable: Any]`; this enum
/// mirrors what can be in it (the Apple adapter converts with `UserInfoValue.dictionary(bridging:)`),
/// so that every shape — numbers where strings belong, arrays, nested objects, huge strings, a
/// missing `aps` — can be built and tested on Linux.
public indirect enum UserInfoValue: Sendable, Equatable {
    /// A string (`NSString`).
    case string(String)
    /// A number that is not a boolean (`NSNumber`).
    case number(Double)
    /// A boolean (`NSNumber` backed by `CFBoolean`).
    case bool(Bool)
    /// An array (`NSArray`).
    case array([UserInfoValue])
    /// A dictionary with string keys (`NSDictionary`; entries with non-string keys are dropped).
    case dictionary([String: UserInfoValue])
    /// Anything else (`NSNull`, `NSData`, `NSDate`, …).
    case other

    /// The string, when this is a string.
    public var stringValue: String? {
        if case let .string(text) = self { return text }
        return nil
    }

    /// The dictionary, when this is a dictionary.
    public var dictionaryValue: [String: UserInfoValue]? {
        if case let .dictionary(dictionary) = self { return dictionary }
        return nil
    }

    /// Converts a parsed JSON value the way iOS converts an APNs payload into `userInfo`:
    /// numbers become doubles, `null` becomes ``other``. When a JSON object repeats a member name,
    /// the first occurrence is kept.
    package init(json: JSONValue) {
        switch json {
        case .null: self = .other
        case let .bool(flag): self = .bool(flag)
        case let .number(literal): self = Double(literal).map(UserInfoValue.number) ?? .other
        case let .string(text): self = .string(text)
        case let .array(elements): self = .array(elements.map(UserInfoValue.init(json:)))
        case let .object(object):
            var dictionary: [String: UserInfoValue] = [:]
            for member in object.members where dictionary[member.name] == nil {
                dictionary[member.name] = UserInfoValue(json: member.value)
            }
            self = .dictionary(dictionary)
        }
    }
}

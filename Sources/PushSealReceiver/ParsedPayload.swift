import PushSealCore
import PushSealJSON

/// The outer fields a fallback may use: visible to the push service, untrusted, never decrypted.
struct OuterFields: Sendable, Equatable {
    // `Optional<T>`, not `T?`: no implicit nil initialization, so the payload scan's initializer
    // writes each field once and the value is built in place (see ReceivedNotification).

    /// The placeholder alert (`aps.alert`), when it has a title, subtitle or body.
    var placeholder: Optional<FallbackText>
    /// `aps.thread-id` (opaque).
    var threadIdentifier: Optional<String>
    /// `aps.category`.
    var category: Optional<String>
    /// `aps.badge`, when it is an integer in 0...2147483647.
    var badge: Optional<Int64>

    static let none = OuterFields()

    /// Reads the `aps` dictionary of an APNs payload. Values of the wrong type are ignored.
    init(aps: UserInfoValue?) {
        self.init()
        guard let aps = aps?.dictionaryValue else { return }
        threadIdentifier = member(aps, "thread-id")?.stringValue
        category = member(aps, "category")?.stringValue
        if case let .number(value)? = member(aps, "badge") { badge = Self.badge(value) }
        switch member(aps, "alert") {
        case let .string(body)?:
            placeholder = FallbackText(body: .plain(body))
        case let .dictionary(alert)?:
            placeholder = Self.placeholder(
                title: Self.text(alert, plain: "title", key: "title-loc-key", arguments: "title-loc-args"),
                subtitle: Self.text(alert, plain: "subtitle", key: "subtitle-loc-key", arguments: "subtitle-loc-args"),
                body: Self.text(alert, plain: "body", key: "loc-key", arguments: "loc-args"))
        default:
            break
        }
    }

    private init() {
        placeholder = nil
        threadIdentifier = nil
        category = nil
        badge = nil
    }

    /// Reads the `aps` object of a raw JSON payload exactly as ``init(aps:)`` reads it after the
    /// `userInfo` conversion (`UserInfoValue(json:)`), without building that dictionary: the
    /// names looked up are lowercase ASCII, whose only canonically equivalent spelling is
    /// themselves, so the dictionary's first-occurrence entry is the first member with exactly
    /// those bytes; numbers convert with the same `Double(literal)`.
    init(apsJSON: JSONValue?) {
        self.init()
        guard case let .object(aps)? = apsJSON else { return }
        threadIdentifier = aps["thread-id"]?.stringValue
        category = aps["category"]?.stringValue
        if case let .number(literal)? = aps["badge"] { badge = Self.badge(Double(literal)) }
        switch aps["alert"] {
        case let .string(body)?:
            placeholder = FallbackText(body: .plain(body))
        case let .object(alert)?:
            placeholder = Self.placeholder(
                title: Self.text(alert, plain: "title", key: "title-loc-key", arguments: "title-loc-args"),
                subtitle: Self.text(alert, plain: "subtitle", key: "subtitle-loc-key", arguments: "subtitle-loc-args"),
                body: Self.text(alert, plain: "body", key: "loc-key", arguments: "loc-args"))
        default:
            break
        }
    }

    /// What ``init(apsJSON:)`` reads, from the fields the payload scan read directly (an `aps`
    /// without localization keys).
    init(threadIdentifier: String?, category: String?, badgeLiteral: String?, alert: consuming JSONParser.Alert) {
        self.threadIdentifier = threadIdentifier
        self.category = category
        badge = badgeLiteral.flatMap { Self.badge(Double($0)) }
        switch consume alert {
        case .none:
            placeholder = nil
        case let .text(body):
            placeholder = FallbackText(body: .plain(body))
        case let .parts(title, subtitle, body):
            placeholder = Self.placeholder(
                title: title.map(NotificationText.plain), subtitle: subtitle.map(NotificationText.plain),
                body: body.map(NotificationText.plain))
        }
    }

    /// `aps.badge` as iOS takes it: a whole number from 0 to ``NotificationContent/maximumBadge``;
    /// anything else (or no number) is no badge.
    private static func badge(_ value: Double?) -> Int64? {
        guard let value, value >= 0, value <= Double(NotificationContent.maximumBadge), value == value.rounded(.towardZero) else {
            return nil
        }
        return Int64(value)
    }

    /// The placeholder an alert's parts make: nil when it has none of them, an empty body when it
    /// has a title or subtitle only.
    private static func placeholder(title: NotificationText?, subtitle: NotificationText?, body: NotificationText?) -> FallbackText? {
        guard title != nil || subtitle != nil || body != nil else { return nil }
        return FallbackText(title: title, subtitle: subtitle, body: body ?? .plain(""))
    }

    /// ``text(_:plain:key:arguments:)`` on a JSON object.
    private static func text(_ alert: JSONObject, plain: String, key: String, arguments: String) -> NotificationText? {
        if let locKey = alert[key]?.stringValue {
            var strings: [String] = []
            if case let .array(values)? = alert[arguments] {
                strings = values.compactMap(\.stringValue)
                if strings.count != values.count { strings = [] }
            }
            return .localized(key: locKey, arguments: strings)
        }
        return alert[plain]?.stringValue.map(NotificationText.plain)
    }

    /// A localization key (with its string arguments) takes precedence over literal text, as on iOS.
    private static func text(_ alert: [String: UserInfoValue], plain: String, key: String, arguments: String) -> NotificationText? {
        if let locKey = member(alert, key)?.stringValue {
            var strings: [String] = []
            if case let .array(values)? = member(alert, arguments) {
                strings = values.compactMap(\.stringValue)
                if strings.count != values.count { strings = [] }
            }
            return .localized(key: locKey, arguments: strings)
        }
        return member(alert, plain)?.stringValue.map(NotificationText.plain)
    }
}

/// The dictionary member whose name has exactly these UTF-8 bytes (no Unicode equivalence: Swift
/// `String` keys compare by canonical equivalence, so the found key is checked byte for byte; a
/// dictionary cannot hold two canonically equivalent keys at once).
func member(_ dictionary: [String: UserInfoValue], _ name: String) -> UserInfoValue? {
    guard let index = dictionary.index(forKey: name), dictionary[index].key.utf8.elementsEqual(name.utf8) else { return nil }
    return dictionary[index].value
}

/// A payload whose envelope has been located (SPEC 10.1) and whose outer fields have been read,
/// but which has not been opened. Parsing needs no key, so a best attempt can be prepared from it
/// before decryption starts.
public struct ParsedPayload: Sendable, Equatable {
    /// The sealed member, as found.
    enum Sealed: Sendable, Equatable {
        /// None: `not_sealed`; the string says why.
        case absent(String)
        /// The sealed member occurs more than once in its object: `malformed_envelope`.
        case duplicated
        /// The sealed member is not a string: `malformed_envelope`; the string names the type.
        case notString(String)
        /// The wire string.
        case wire(String)
        /// The wire string, already decoded by the payload scan (it was strict base64url of at
        /// most `Envelope.maximumWireLength` characters); equivalent to `.wire` of its encoding.
        case envelope([UInt8])
    }

    /// The in-band key bundle member (`pushseal-bundle`, SPEC §16.7) beside the sealed member.
    enum BundleMember: Sendable, Equatable {
        /// Its string value.
        case text(String)
        /// Not a string: `malformed_bundle`; the string names the type.
        case notString(String)
    }

    let sealed: Sealed
    let outer: OuterFields
    /// The key bundle member, when the object holding the sealed member has one.
    let bundle: BundleMember?

    /// The name of the sealed member.
    static var sealedName: String { PayloadMember.sealed }
    /// The name of the in-band key bundle member.
    static var bundleName: String { PayloadMember.keyBundle }

    /// Locates the envelope and reads the outer fields of `payload`.
    public init(_ payload: ReceiverPayload) {
        switch payload {
        case let .json(bytes): self.init(json: bytes)
        case let .userInfo(dictionary): self.init(userInfo: dictionary)
        case let .fcmData(data): self.init(fcmData: data)
        }
    }

    /// True when the payload carries a sealed member at all (anything but `not_sealed`).
    public var isSealed: Bool {
        if case .absent = sealed { return false }
        return true
    }

    init(sealed: Sealed, outer: OuterFields, bundle: BundleMember? = nil) {
        self.sealed = sealed
        self.outer = outer
        self.bundle = bundle
    }

    // MARK: FCM data map

    init(fcmData data: [String: String]) {
        let wire = data.first { $0.key.utf8.elementsEqual(Self.sealedName.utf8) }?.value
        let bundle = data.first { $0.key.utf8.elementsEqual(Self.bundleName.utf8) }?.value
        self.init(sealed: wire.map(Sealed.wire) ?? .absent("the FCM data map has no \"pushseal\" key"), outer: .none,
                  bundle: bundle.map(BundleMember.text))
    }

    // MARK: userInfo

    init(userInfo: [String: UserInfoValue]) {
        let outer = OuterFields(aps: member(userInfo, "aps"))
        let container: [String: UserInfoValue]
        if member(userInfo, Self.sealedName) != nil {
            container = userInfo
        } else if let message = member(userInfo, "message")?.dictionaryValue,
                  let data = member(message, "data")?.dictionaryValue,
                  member(data, Self.sealedName) != nil {
            container = data
        } else {
            self.init(sealed: .absent("no \"pushseal\" member"), outer: outer)
            return
        }
        let bundle: BundleMember? = member(container, Self.bundleName).map { value in
            if case let .string(text) = value { return .text(text) }
            if case let .notString(kind) = Self.sealed(from: value) { return .notString(kind) }
            return .notString("not a string")
        }
        self.init(sealed: Self.sealed(from: member(container, Self.sealedName)!), outer: outer, bundle: bundle)
    }

    static func sealed(from value: UserInfoValue) -> Sealed {
        switch value {
        case let .string(wire): .wire(wire)
        case .number: .notString("a number")
        case .bool: .notString("a boolean")
        case .array: .notString("an array")
        case .dictionary: .notString("an object")
        case .other: .notString("neither a string nor a JSON value")
        }
    }

    // MARK: Raw JSON

    /// SPEC 10.1 and Appendix A.1: strict JSON (depth ≤ 16) with duplicate names recorded, not
    /// rejected; the sealed member is the top-level `pushseal`, else `message.data.pushseal`
    /// (each of `message` and `data` occurring exactly once); a duplicated name anywhere except the
    /// sealed member itself is `not_sealed`; a duplicated sealed member is `malformed_envelope`.
    @usableFromInline
    init(json bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { ParsedPayload(json: $0) }
    }

    /// ``init(json:)`` on bytes in memory (read in place).
    @usableFromInline
    init(json buffer: UnsafeRawBufferPointer) {
        // The usual payload (valid, top-level string `pushseal`, no repeated or escaped names) is
        // recognized by a scan that builds nothing; only `aps` is parsed. Anything else takes the
        // general path below, which decides every case.
        guard let layout = JSONParser.scanSealedPayload(buffer, maximumDepth: NotificationContent.maximumNestingDepth) else {
            self.init(generalJSON: buffer)
            return
        }
        // Taken apart rather than copied: the strings move into the outer fields.
        let (envelope, aps) = layout.parts()
        let outer: OuterFields
        switch consume aps {
        case .absent:
            outer = OuterFields(apsJSON: nil)
        case let .fields(threadID, category, badgeLiteral, alert):
            outer = OuterFields(threadIdentifier: threadID, category: category, badgeLiteral: badgeLiteral, alert: alert)
        case let .general(range):
            // Valid and free of duplicates (the scan checked): parsing cannot fail.
            guard let apsValue = try? JSONParser.parseKeepingDuplicateNames(
                UnsafeRawBufferPointer(rebasing: buffer[range]), maximumDepth: NotificationContent.maximumNestingDepth)
            else {
                self.init(generalJSON: buffer)
                return
            }
            outer = OuterFields(apsJSON: apsValue)
        }
        self.init(sealed: .envelope(envelope), outer: outer)
    }

    /// The general path of ``init(json:)``: parses the whole payload into a tree, every case.
    init(generalJSON bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { ParsedPayload(generalJSON: $0) }
    }

    /// ``init(generalJSON:)`` on bytes in memory.
    init(generalJSON bytes: UnsafeRawBufferPointer) {
        let value: JSONValue
        do {
            value = try JSONParser.parseKeepingDuplicateNames(bytes, maximumDepth: NotificationContent.maximumNestingDepth)
        } catch {
            self.init(sealed: .absent("the payload is not strict JSON: \(error)"), outer: .none)
            return
        }
        guard case let .object(top) = value else {
            self.init(sealed: .absent("the payload is not a JSON object"), outer: .none)
            return
        }
        let outer = OuterFields(apsJSON: Self.first(top, "aps"))
        switch Self.locate(in: top) {
        case let .repeatedName(name, _):
            self.init(sealed: .absent("the payload repeats the member name \"\(name)\""), outer: outer)
        case .absent:
            self.init(sealed: .absent("no \"pushseal\" member"), outer: outer)
        case let .found(container, _):
            let (sealed, bundle) = Self.members(of: container)
            self.init(sealed: sealed, outer: outer, bundle: bundle)
        }
    }

    /// Where SPEC 10.1 finds the sealed member in a payload's top-level object (parsed keeping
    /// duplicate names), before its value is looked at.
    enum Location {
        /// An object repeats this member name (anything but the sealed member in its own
        /// object): `not_sealed`. `ordinal` counts the repeats met before it in document order
        /// (each object's names before its members' values), the exempt ones included.
        case repeatedName(String, ordinal: Int)
        /// Neither the top level nor `message.data` has a sealed member: `not_sealed`.
        case absent
        /// The object holding the sealed member: `message.data` when `inMessageData`, else the
        /// top level.
        case found(container: JSONObject, inMessageData: Bool)
    }

    /// The one way the receiver locates the sealed member (SPEC 10.1, Appendix A.1): the
    /// top-level `pushseal`, else `message.data.pushseal` (each of `message` and `data` occurring
    /// exactly once); a name repeated anywhere except the sealed member in its own object comes
    /// first. `pushseal inspect` reads payloads through it too (``PayloadInspection``).
    static func locate(in top: JSONObject) -> Location {
        // Locate the object holding the sealed member, as a path of (unique) member names.
        var path: [String]?
        if Self.count(top, Self.sealedName) > 0 {
            path = []
        } else if Self.count(top, "message") == 1, case let .object(message)? = Self.first(top, "message"),
                  Self.count(message, "data") == 1, case let .object(data)? = Self.first(message, "data"),
                  Self.count(data, Self.sealedName) > 0 {
            path = ["message", "data"]
        }

        var repeats = 0
        if let name = Self.duplicatedName(in: .object(top), sealedPath: path.map { $0[...] }, repeats: &repeats) {
            return .repeatedName(name, ordinal: repeats)
        }
        guard let path else { return .absent }
        var container = top
        for name in path {
            guard case let .object(inner)? = Self.first(container, name) else { preconditionFailure("located path") }
            container = inner
        }
        return .found(container: container, inMessageData: !path.isEmpty)
    }

    /// The sealed member of the object that holds it (``locate(in:)``), and its key bundle
    /// member: a sealed member that occurs more than once is `.duplicated`.
    static func members(of container: JSONObject) -> (Sealed, BundleMember?) {
        guard Self.count(container, Self.sealedName) == 1 else { return (.duplicated, nil) }
        let bundle: BundleMember? = Self.first(container, Self.bundleName).map { value in
            if case let .string(text) = value { return .text(text) }
            return .notString(Self.typeName(value))
        }
        let sealedValue = Self.first(container, Self.sealedName)!
        if case let .string(wire) = sealedValue { return (.wire(wire), bundle) }
        return (.notString(Self.typeName(sealedValue)), bundle)
    }

    /// "null", "a boolean", … for a value that is not a string.
    static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .string: "a string"
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .array: "an array"
        case .object: "an object"
        }
    }

    private static func count(_ object: JSONObject, _ name: String) -> Int {
        object.members.reduce(0) { $0 + (UTF8Bytes.equal($1.name, name) ? 1 : 0) }
    }

    private static func first(_ object: JSONObject, _ name: String) -> JSONValue? {
        object[name]
    }

    /// The first member name that occurs twice in one object, anywhere in `value`, except the
    /// sealed member's own name in the object at `sealedPath`. Names compare by UTF-8 bytes.
    /// `repeats` counts the repeated names met before the one returned (exempt ones included).
    private static func duplicatedName(in value: JSONValue, sealedPath: ArraySlice<String>?, repeats: inout Int) -> String? {
        switch value {
        case let .array(elements):
            for element in elements {
                if let name = duplicatedName(in: element, sealedPath: nil, repeats: &repeats) { return name }
            }
            return nil
        case let .object(object):
            // Earlier names: a linear scan for small objects (no allocation), a set of byte
            // arrays for large ones.
            let members = object.members
            var seen: Set<[UInt8]>? = members.count > 16 ? [] : nil
            for (index, member) in members.enumerated() {
                let repeated: Bool
                if seen != nil {
                    repeated = !seen!.insert(Array(member.name.utf8)).inserted
                } else {
                    repeated = members[..<index].contains { UTF8Bytes.equal($0.name, member.name) }
                }
                if repeated {
                    let exempt = sealedPath?.isEmpty == true && UTF8Bytes.equal(member.name, sealedName)
                    if !exempt { return member.name }
                    repeats += 1
                }
                var childPath: ArraySlice<String>?
                if let sealedPath, let next = sealedPath.first, UTF8Bytes.equal(next, member.name) {
                    childPath = sealedPath.dropFirst()
                }
                if let name = duplicatedName(in: member.value, sealedPath: childPath, repeats: &repeats) { return name }
            }
            return nil
        default:
            return nil
        }
    }
}

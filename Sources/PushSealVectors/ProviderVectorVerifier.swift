@_spi(Vectors) import PushSealCore
@_spi(Vectors) import PushSealProvider
import PushSealJSON

/// Runs a provider vector file (`pushseal_v1_provider_test_schema`) through the Swift provider:
/// every case is sealed from its `input`, `options`, `key`, `salt` and `padBlock`, and the payload
/// and every intermediate must match byte for byte.
enum ProviderVectorVerifier {
    static func verify(_ object: JSONObject) throws(VectorVerifier.FileError) -> VectorVerifier.Report {
        guard object["schemaVersion"]?.integerValue == Int64(ProviderVectorSuite.schemaVersion) else {
            throw .wrongSchema("schemaVersion must be \(ProviderVectorSuite.schemaVersion)")
        }
        return try VectorVerifier.report(object, check: check)
    }

    /// Every problem with one case; empty when it passes.
    static func check(_ test: JSONObject) -> [String] {
        guard let keyBytes = test["key"]?.stringValue.flatMap(Hex.decode), let key = try? ConversationKey(rawBytes: keyBytes),
              let salt = test["salt"]?.stringValue.flatMap(Hex.decode), let padBlock = test["padBlock"]?.integerValue,
              let inputObject = test["input"]?.objectValue, let input = content(inputObject),
              let optionsObject = test["options"]?.objectValue, let transport = transport(test["transport"]?.stringValue, optionsObject),
              let result = test["result"]?.stringValue
        else { return ["missing or malformed required field"] }
        var problems: [String] = []
        if test["kid"]?.stringValue != key.id.hex { problems.append("kid differs") }
        switch (test["conversationKey"]?.stringValue.flatMap(Hex.decode), test["deviceKeyId"]?.stringValue.flatMap(Hex.decode)) {
        case let (root?, id?):
            guard let root = try? ConversationKey(rawBytes: root), let id = KeyID(bytes: id) else { return ["malformed conversationKey or deviceKeyId"] }
            if root.deviceKey(for: id) != key { problems.append("key is not the device key of conversationKey and deviceKeyId") }
        case (nil, nil):
            break
        default:
            problems.append("conversationKey and deviceKeyId must be given together")
        }
        if test["threadId"]?.stringValue != key.opaqueThreadID { problems.append("threadId differs") }
        let vector = ProviderVectorCase(
            comment: "", flags: [], key: key, salt: salt, padBlock: Int(padBlock), input: input, transport: transport)
        switch vector.seal() {
        case let .failure(error):
            if result != "error" || test["error"]?.stringValue != error.code {
                problems.append("expected \(result) \(test["error"]?.stringValue ?? ""), got error \(error.code)")
            }
        case let .success(sealed):
            guard result == "sealed" else { return problems + ["expected an error, got a payload"] }
            if test["payload"]?.stringValue != String(decoding: sealed.payload, as: UTF8.self) { problems.append("payload differs") }
            if test["path"]?.stringValue != ProviderVectorCase.pathName(sealed.path) { problems.append("path differs") }
            let parts = ProviderVectorCase.intermediates(payload: sealed.payload, key: key)
            let expected: [(String, String)] = [
                ("wire", parts.wire), ("contentHex", Hex.encode(parts.content)), ("plaintextHex", Hex.encode(parts.plaintext)),
                ("envelopeHex", Hex.encode(parts.envelope)), ("headerHex", Hex.encode(Array(parts.envelope.prefix(Envelope.headerByteCount)))),
                ("tagHex", Hex.encode(Array(parts.envelope.suffix(ChaCha20Poly1305.tagByteCount)))),
                ("messageKey", Hex.encode(Envelope.messageKey(for: key, salt: salt))),
                ("content", String(decoding: parts.content, as: UTF8.self)),
            ]
            for (name, value) in expected where test[name]?.stringValue != value { problems.append("\(name) differs") }
            let sizes = test["sizes"]?.objectValue
            let expectedSizes: [(String, Int)] = [
                ("content", sealed.sizes.contentByteCount), ("padded", sealed.sizes.paddedByteCount),
                ("envelope", sealed.sizes.envelopeByteCount), ("wire", sealed.sizes.wireLength),
                ("payload", sealed.sizes.payloadByteCount), ("limited", sealed.sizes.limitedByteCount), ("limit", sealed.sizes.limit),
            ]
            for (name, value) in expectedSizes where sizes?[name]?.integerValue != Int64(value) { problems.append("sizes.\(name) differs") }
        }
        return problems
    }

    /// The sealer's input from its file form (no size checks: the size policy applies them).
    static func content(_ object: JSONObject) -> NotificationContent? {
        guard let cid = object["cid"]?.stringValue, let mid = object["mid"]?.stringValue, let ts = object["ts"]?.integerValue else {
            return nil
        }
        var value = NotificationContent(conversationID: cid, messageID: mid, sentAt: ts, body: object["body"]?.stringValue)
        value.title = object["title"]?.stringValue
        value.subtitle = object["subtitle"]?.stringValue
        if let sender = object["sender"]?.objectValue, let id = sender["id"]?.stringValue {
            value.sender = .init(id: id, name: sender["name"]?.stringValue)
        }
        value.thread = object["thread"]?.stringValue
        value.category = object["category"]?.stringValue
        value.badge = object["badge"]?.integerValue
        value.isTruncated = object["trunc"] == .bool(true)
        if let extras = object["x"]?.objectValue {
            for member in extras.members { value.extras[member.name] = member.value.stringValue }
        }
        return value
    }

    /// The option members of each transport; a case with any other member is malformed, so a
    /// runner that does not know an option fails the case instead of sealing without it.
    static let optionMembers: [String: Set<String>] = [
        "apns": ["placeholder", "sound", "threadId", "plainThreadId", "category", "interruptionLevel", "relevanceScore", "keyBundle"],
        "fcm": ["token", "priority", "ttl", "keyBundle"],
    ]

    static func transport(_ name: String?, _ object: JSONObject) -> ProviderVectorCase.Transport? {
        func strings(_ value: JSONValue?) -> [String] {
            guard case let .array(items)? = value else { return [] }
            return items.compactMap(\.stringValue)
        }
        guard let name, let known = optionMembers[name], object.members.allSatisfy({ known.contains($0.name) }) else { return nil }
        var keyBundle: KeyBundle?
        if let member = object["keyBundle"] {
            guard let text = member.stringValue, let bundle = try? KeyBundle(text: text) else { return nil }
            keyBundle = bundle
        }
        switch name {
        case "apns":
            guard let placeholderObject = object["placeholder"]?.objectValue else { return nil }
            var options = APNsOptions()
            if let locKey = placeholderObject["locKey"]?.stringValue {
                options.placeholder = .localized(
                    titleKey: placeholderObject["titleLocKey"]?.stringValue, titleArguments: strings(placeholderObject["titleLocArgs"]),
                    bodyKey: locKey, bodyArguments: strings(placeholderObject["locArgs"]))
            } else if let body = placeholderObject["body"]?.stringValue {
                options.placeholder = .text(title: placeholderObject["title"]?.stringValue, body: body)
            } else {
                return nil
            }
            options.sound = object["sound"]?.stringValue
            switch object["threadId"]?.stringValue {
            case "opaque": options.threadID = .opaque
            case "omitted": options.threadID = .omitted
            case "plain": options.threadID = .plain(object["plainThreadId"]?.stringValue ?? "")
            default: return nil
            }
            options.category = object["category"]?.stringValue
            if let level = object["interruptionLevel"]?.stringValue {
                guard let parsed = APNsOptions.InterruptionLevel(rawValue: level) else { return nil }
                options.interruptionLevel = parsed
            }
            if case let .number(literal)? = object["relevanceScore"] { options.relevanceScore = Double(literal) }
            options.keyBundle = keyBundle
            return .apns(options)
        case "fcm":
            guard let token = object["token"]?.stringValue, let priorityName = object["priority"]?.stringValue,
                  let priority = FCMOptions.AndroidPriority(rawValue: priorityName), let ttl = object["ttl"]?.integerValue
            else { return nil }
            var options = FCMOptions(token: token, priority: priority, timeToLive: ttl)
            options.keyBundle = keyBundle
            return .fcm(options)
        default:
            return nil
        }
    }
}

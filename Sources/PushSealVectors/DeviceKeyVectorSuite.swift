import PushSealJSON
import PushSealCore

/// The device key derivation vectors (Vectors/pushseal-v1-devices.json, SPEC §4.4): a conversation
/// key K and a device key id give the device key K_d = HKDF-Expand(K, "pushseal v1 device
/// conversation key" || deviceKeyId, 32), its kid and its thread-id. Keys come from the receiver
/// vectors' seed and the device keys from the bundle vectors' DeriveKeyPair, so the file
/// regenerates byte for byte.
package enum DeviceKeyVectorSuite {
    /// Schema name written into the file.
    package static let schema = "pushseal_v1_device_key_test_schema"
    /// Schema version written into the file.
    package static let schemaVersion = 1

    struct Case {
        var comment: String
        var conversationKey: ConversationKey
        var devicePublicKey: [UInt8]?
        var deviceKeyID: KeyID
    }

    static func cases() -> [Case] {
        let k1 = VectorSuite.key("device derivation epoch 1")
        let k2 = VectorSuite.key("device derivation epoch 2")
        let phone = BundleVectorSuite.identity("device")
        let tablet = BundleVectorSuite.identity("other device")
        let laptop = BundleVectorSuite.identity("laptop")
        func device(_ comment: String, _ key: ConversationKey, _ pair: IdentityKeyPair) -> Case {
            Case(comment: comment, conversationKey: key, devicePublicKey: pair.publicKey, deviceKeyID: pair.deviceKeyID)
        }
        return [
            device("epoch 1, the phone (the bundle vectors' standard device)", k1, phone),
            device("epoch 1, the tablet: another key, kid and thread-id", k1, tablet),
            device("epoch 1, the laptop", k1, laptop),
            device("epoch 2, the phone: a new epoch gives the same device an unrelated key", k2, phone),
            Case(comment: "a device key id of 16 zero bytes", conversationKey: k1, devicePublicKey: nil,
                 deviceKeyID: KeyID(bytes: [UInt8](repeating: 0, count: 16))!),
            Case(comment: "a device key id of 16 0xff bytes", conversationKey: k1, devicePublicKey: nil,
                 deviceKeyID: KeyID(bytes: [UInt8](repeating: 0xff, count: 16))!),
        ]
    }

    static func jsonValue(_ vector: Case, tcId: Int) -> JSONValue {
        func keyHex(_ key: ConversationKey) -> JSONValue { .string(key.withUnsafeBytes { Hex.encode($0) }) }
        let deviceKey = vector.conversationKey.deviceKey(for: vector.deviceKeyID)
        return .object(JSONObject(members: [
            .init(name: "tcId", value: .number(String(tcId))),
            .init(name: "comment", value: .string(vector.comment)),
            .init(name: "conversationKey", value: keyHex(vector.conversationKey)),
            .init(name: "conversationKid", value: .string(vector.conversationKey.id.hex)),
            .init(name: "devicePublicKey", value: vector.devicePublicKey.map { .string(Hex.encode($0)) } ?? .null),
            .init(name: "deviceKeyId", value: .string(vector.deviceKeyID.hex)),
            .init(name: "info", value: .string(Hex.encode(ConversationKey.deviceKeyInfo + vector.deviceKeyID.bytes))),
            .init(name: "deviceKey", value: keyHex(deviceKey)),
            .init(name: "kid", value: .string(deviceKey.id.hex)),
            .init(name: "threadId", value: .string(deviceKey.opaqueThreadID)),
        ]))
    }

    /// The vector file's text (pretty-printed JSON, trailing newline).
    package static func render() -> String {
        let all = cases()
        var writer = JSONWriter(capacity: 1 << 13)
        writer.appendPretty(.object(JSONObject(members: [
            .init(name: "schema", value: .string(schema)),
            .init(name: "schemaVersion", value: .number(String(schemaVersion))),
            .init(name: "algorithm", value: .string("PushSeal-v1 device key: HKDF-SHA256-Expand(K, \"pushseal v1 device conversation key\" || deviceKeyId, 32)")),
            .init(name: "generator", value: .string("pushseal vectors generate --devices")),
            .init(name: "numberOfTests", value: .number(String(all.count))),
            .init(name: "header", value: .array([
                .string("PushSeal device key derivation test vectors (see Docs/SPEC.md section 4.4)."),
                .string("Byte strings are lowercase hex; `threadId` is base64url. `info` is the 51-byte HKDF info; kid and threadId are derived from deviceKey as from any key."),
                .string("`deviceKeyId` = HKDF-Expand(devicePublicKey, \"pushseal v1 device key id\", 16) when `devicePublicKey` is given."),
            ])),
            .init(name: "tests", value: .array(all.enumerated().map { jsonValue($1, tcId: $0 + 1) })),
        ])))
        writer.appendRaw("\n")
        return writer.text
    }

    /// Number of cases in the file.
    package static var caseCount: Int { cases().count }

    /// Every problem with one case; empty when it passes.
    static func check(_ test: JSONObject) -> [String] {
        func bytes(_ name: String) -> [UInt8]? { test[name]?.stringValue.flatMap(Hex.decode) }
        guard let k = bytes("conversationKey"), let key = try? ConversationKey(rawBytes: k),
              let id = bytes("deviceKeyId").flatMap({ KeyID(bytes: $0) }) else { return ["missing or malformed required field"] }
        var problems: [String] = []
        if let publicKey = bytes("devicePublicKey"), KeyBundle.deviceKeyID(of: publicKey) != id { problems.append("deviceKeyId differs") }
        if bytes("conversationKid") != key.id.bytes { problems.append("conversationKid differs") }
        if bytes("info") != ConversationKey.deviceKeyInfo + id.bytes { problems.append("info differs") }
        let deviceKey = key.deviceKey(for: id)
        if bytes("deviceKey") != deviceKey.withUnsafeBytes({ Array($0) }) { problems.append("deviceKey differs") }
        if bytes("kid") != deviceKey.id.bytes { problems.append("kid differs") }
        if test["threadId"]?.stringValue != deviceKey.opaqueThreadID { problems.append("threadId differs") }
        return problems
    }
}

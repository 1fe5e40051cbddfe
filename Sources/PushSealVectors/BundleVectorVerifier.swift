import PushSealJSON
import PushSealCore

import PushSealKeyDirectory
/// Runs a bundle vector file (`pushseal_v1_bundle_test_schema`, format 2) through the Swift
/// implementation: key pairs, ids and the device key K_d are re-derived, every bundle is checked
/// on the device side against the case's pinned keys, clock, envelope kid, stored keys and
/// conversation record, the installation plan and the intermediates compared, and resealable
/// bundles are sealed again from K byte for byte.
enum BundleVectorVerifier {
    static func verify(_ object: JSONObject) throws(VectorVerifier.FileError) -> VectorVerifier.Report {
        guard object["schemaVersion"]?.integerValue == Int64(BundleVectorSuite.schemaVersion) else {
            throw .wrongSchema("schemaVersion must be \(BundleVectorSuite.schemaVersion) (bundle format 2)")
        }
        return try VectorVerifier.report(object, check: check)
    }

    static func identity(_ value: JSONValue?) -> (IdentityKeyPair, [UInt8])? {
        guard let object = value?.objectValue, let privateKey = object["private"]?.stringValue.flatMap(Hex.decode),
              let publicKey = object["public"]?.stringValue.flatMap(Hex.decode),
              let pair = try? IdentityKeyPair(privateKeyBytes: privateKey) else { return nil }
        return (pair, publicKey)
    }

    static func record(_ value: JSONValue?) -> KeyBundleConversationRecord?? {
        guard let value else { return nil }
        if value == .null { return .some(nil) }
        guard let object = value.objectValue, let h = object["highWater"]?.integerValue, let s = object["highWaterSince"]?.integerValue,
              let p = object["purgedThrough"]?.integerValue else { return nil }
        return .some(KeyBundleConversationRecord(highWater: h, highWaterSince: s, purgedThrough: p))
    }

    /// Every problem with one case; empty when it passes.
    static func check(_ test: JSONObject) -> [String] {
        func string(_ name: String) -> String? { test[name]?.stringValue }
        func bytes(_ name: String) -> [UInt8]? { string(name).flatMap(Hex.decode) }
        func key(_ name: String) -> ConversationKey? { bytes(name).flatMap { try? ConversationKey(rawBytes: $0) } }
        guard let (device, devicePublic) = identity(test["deviceKeyPair"]), let (provider, providerPublic) = identity(test["providerKeyPair"]),
              case let .array(pinnedValues)? = test["pinnedProviderKeys"], case let .array(storedValues)? = test["storedKeys"],
              let deviceKey = key("deviceKey"), let conversation = string("conversation"), let now = test["now"]?.integerValue,
              let keyStore = string("keyStore"), let bundleText = string("bundle"), let result = string("result"),
              let recordBefore = record(test["conversationRecord"])
        else { return ["missing or malformed required field"] }
        let rootKey = key("conversationKey")
        var problems: [String] = []
        if device.publicKey != devicePublic { problems.append("device public key differs from its private key's") }
        if provider.publicKey != providerPublic { problems.append("provider public key differs from its private key's") }
        if string("deviceKeyId") != device.deviceKeyID.hex { problems.append("deviceKeyId differs") }
        if string("providerKeyId") != provider.providerKeyID.hex { problems.append("providerKeyId differs") }
        if let rootKey, rootKey.deviceKey(for: device.deviceKeyID) != deviceKey { problems.append("deviceKey is not K_d of conversationKey") }
        // SPEC §16.8: the strict base64url decoding of the text (any length), null when it is not strict base64url.
        let expectedHex = (try? Base64URL.decode(bundleText)).map { JSONValue.string(Hex.encode($0)) } ?? .null
        if test["bundleHex"] != expectedHex { problems.append("bundleHex differs") }
        let pinned = pinnedValues.compactMap { $0.stringValue.flatMap(Hex.decode) }
        var stored: [BundleVectorSuite.StoredKey] = []
        for value in storedValues {
            guard let entry = value.objectValue, let c = entry["conversation"]?.stringValue, let e = entry["epoch"]?.integerValue,
                  let k = entry["key"]?.stringValue.flatMap(Hex.decode), let storedKey = try? ConversationKey(rawBytes: k),
                  let createdAt = entry["createdAt"]?.integerValue
            else { return problems + ["malformed storedKeys entry"] }
            stored.append(.init(conversation: c, epoch: e, key: storedKey, notAfter: entry["notAfter"]?.integerValue, createdAt: createdAt))
        }
        let envelopeKid = string("envelopeKid").flatMap(Hex.decode).flatMap { KeyID(bytes: $0) }
        let fields = BundleVectorSuite.Fields(key: deviceKey, kid: deviceKey.id, epoch: 0, since: 0, retireBy: 0, expires: 0, conversationBytes: [])
        let vector = BundleVectorSuite.Case(
            comment: "", flags: [], device: device, sealer: provider, pinned: pinned, rootKey: rootKey, fields: fields,
            conversation: conversation, now: now, stored: stored, record: recordBefore, envelopeKid: envelopeKid, keyStore: keyStore, ikmE: nil,
            bundleText: bundleText, context: nil, outcome: .failure(.kidMismatch), resealable: false)
        let (context, outcome) = BundleVectorSuite.evaluate(vector)
        func number(_ value: Int64?) -> JSONValue { value.map { .number(String($0)) } ?? .null }
        switch outcome {
        case let .success(plan):
            if result != "valid" || string("outcome") != plan.installation.rawValue {
                problems.append("expected \(result) \(string("outcome") ?? string("reason") ?? ""), got valid \(plan.installation.rawValue)")
            }
            if test["notAfter"] != number(plan.notAfter) { problems.append("notAfter differs") }
            if test["retireEarlierAt"] != number(plan.retireEarlierAt) { problems.append("retireEarlierAt differs") }
            if test["createdAt"] != number(plan.createdAt) { problems.append("createdAt differs") }
            if test["conversationRecordAfter"] != BundleVectorSuite.json(plan.record) { problems.append("conversationRecordAfter differs") }
        case let .failure(error):
            if result != "invalid" || string("reason") != error.reason.rawValue {
                problems.append("expected \(result) \(string("reason") ?? string("outcome") ?? ""), got \(error.reason.rawValue)")
            }
        }
        func hex(_ key: SecretKey?) -> String? { key.map { $0.withUnsafeBytes { Hex.encode($0) } } }
        let intermediates: [(String, String?)] = [
            ("sharedSecret", hex(context?.sharedSecret)), ("hpkeKey", hex(context?.key)), ("baseNonce", context.map { Hex.encode($0.baseNonce) }),
        ]
        for (name, value) in intermediates where string(name) != value { problems.append("\(name) differs") }
        if let context, let ct = bytes("ct"), let aad = bytes("aad") {
            let opened = try? context.open(ct, authenticating: aad)
            if opened.map(Hex.encode) != string("plaintext") { problems.append("plaintext differs from the opened contents") }
        }
        if let parsed = (try? Base64URL.decode(bundleText)).flatMap({ try? KeyBundle(bytes: $0) }) {
            let aad = parsed.header.encoded()
            if string("aad") != Hex.encode(aad) || aad != Array(parsed.bytes.prefix(aad.count)) { problems.append("aad differs") }
            if string("enc") != Hex.encode(Array(parsed.bytes[aad.count..<(aad.count + 32)])) { problems.append("enc differs") }
            if string("ct") != Hex.encode(Array(parsed.bytes[(aad.count + 32)...])) { problems.append("ct differs") }
        }
        if test["resealable"] == .bool(true) {
            guard let rootKey, let ikmE = bytes("ikmE"),
                  let ephemeral = try? HybridPublicKeyEncryption.deriveKeyPair(inputKeyMaterial: SecretKey(bytes: ikmE)),
                  let epoch = test["epoch"]?.integerValue, let since = test["since"]?.integerValue, let expires = test["expires"]?.integerValue,
                  let contents = try? KeyBundleContents(
                      key: rootKey.deviceKey(for: device.deviceKeyID), conversation: conversation, epoch: epoch, since: since,
                      retireBy: test["retireBy"]?.integerValue, expires: expires),
                  let resealed = try? KeyBundle.seal(contents, provider: provider, devicePublicKey: device.publicKey, ephemeral: ephemeral)
            else { return problems + ["resealing failed"] }
            if resealed.bundle.text != bundleText { problems.append("resealed bundle differs") }
        }
        return problems
    }
}

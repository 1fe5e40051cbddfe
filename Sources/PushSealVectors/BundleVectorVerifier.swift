import PushSealJSON
import PushSealCore

/// Runs a bundle vector file (`pushseal_v1_bundle_test_schema`) through the Swift implementation:
/// key pairs and ids are re-derived, every bundle is checked on the device side against the
/// case's pinned keys, clock and store, the intermediates compared, and resealable bundles are
/// sealed again byte for byte.
enum BundleVectorVerifier {
    static func verify(_ object: JSONObject) throws(VectorVerifier.FileError) -> VectorVerifier.Report {
        guard object["schemaVersion"]?.integerValue == Int64(BundleVectorSuite.schemaVersion) else {
            throw .wrongSchema("schemaVersion must be \(BundleVectorSuite.schemaVersion)")
        }
        return try VectorVerifier.report(object, check: check)
    }

    static func identity(_ value: JSONValue?) -> (IdentityKeyPair, [UInt8])? {
        guard let object = value?.objectValue, let privateKey = object["private"]?.stringValue.flatMap(Hex.decode),
              let publicKey = object["public"]?.stringValue.flatMap(Hex.decode),
              let pair = try? IdentityKeyPair(privateKeyBytes: privateKey) else { return nil }
        return (pair, publicKey)
    }

    /// Every problem with one case; empty when it passes.
    static func check(_ test: JSONObject) -> [String] {
        func string(_ name: String) -> String? { test[name]?.stringValue }
        func bytes(_ name: String) -> [UInt8]? { string(name).flatMap(Hex.decode) }
        guard let (device, devicePublic) = identity(test["deviceKeyPair"]), let (provider, providerPublic) = identity(test["providerKeyPair"]),
              case let .array(pinnedValues)? = test["pinnedProviderKeys"], case let .array(storedValues)? = test["storedKeys"],
              let keyBytes = bytes("key"), let key = try? ConversationKey(rawBytes: keyBytes),
              let conversation = string("conversation"), let epoch = test["epoch"]?.integerValue, let now = test["now"]?.integerValue,
              let keyStore = string("keyStore"), let bundleText = string("bundle"), let result = string("result")
        else { return ["missing or malformed required field"] }
        let notAfter = test["notAfter"]?.integerValue
        var problems: [String] = []
        if device.publicKey != devicePublic { problems.append("device public key differs from its private key's") }
        if provider.publicKey != providerPublic { problems.append("provider public key differs from its private key's") }
        if string("deviceKeyId") != device.deviceKeyID.hex { problems.append("deviceKeyId differs") }
        if string("providerKeyId") != provider.providerKeyID.hex { problems.append("providerKeyId differs") }
        if string("kid") != key.id.hex { problems.append("kid differs") }
        if string("bundleHex") != (try? Base64URL.decode(bundleText)).map({ Hex.encode($0) }) ?? "" { problems.append("bundleHex differs") }
        let pinned = pinnedValues.compactMap { $0.stringValue.flatMap(Hex.decode) }
        var stored: [(conversation: String, epoch: Int64, key: ConversationKey)] = []
        for value in storedValues {
            guard let entry = value.objectValue, let c = entry["conversation"]?.stringValue, let e = entry["epoch"]?.integerValue,
                  let k = entry["key"]?.stringValue.flatMap(Hex.decode), let storedKey = try? ConversationKey(rawBytes: k)
            else { return problems + ["malformed storedKeys entry"] }
            stored.append((c, e, storedKey))
        }
        let vector = BundleVectorSuite.Case(
            comment: "", flags: [], device: device, sealer: provider, pinned: pinned, key: key, conversation: conversation, epoch: epoch,
            notAfter: notAfter, now: now, stored: stored, keyStore: keyStore, ikmE: nil, bundleText: bundleText, context: nil,
            outcome: .success(.installed), resealable: false)
        let (context, outcome) = BundleVectorSuite.evaluate(vector)
        switch outcome {
        case let .success(installation):
            if result != "valid" || string("outcome") != installation.rawValue {
                problems.append("expected \(result) \(string("outcome") ?? string("reason") ?? ""), got valid \(installation.rawValue)")
            }
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
        if let parsed = (try? Base64URL.decode(bundleText)).flatMap({ try? KeyBundle(bytes: $0) }) {
            let aad = parsed.header.encoded()
            if string("aad") != Hex.encode(aad) || aad != Array(parsed.bytes.prefix(aad.count)) { problems.append("aad differs") }
            if string("enc") != Hex.encode(Array(parsed.bytes[aad.count..<(aad.count + 32)])) { problems.append("enc differs") }
            if string("ct") != Hex.encode(Array(parsed.bytes[(aad.count + 32)...])) { problems.append("ct differs") }
        }
        if test["resealable"] == .bool(true) {
            guard let ikmE = bytes("ikmE"), let ephemeral = try? HybridPublicKeyEncryption.deriveKeyPair(inputKeyMaterial: SecretKey(bytes: ikmE)),
                  let resealed = try? KeyBundle.seal(
                      key, conversation: conversation, epoch: epoch, notAfter: notAfter, provider: provider,
                      devicePublicKey: device.publicKey, ephemeral: ephemeral)
            else { return problems + ["resealing failed"] }
            if resealed.bundle.text != bundleText { problems.append("resealed bundle differs") }
        }
        return problems
    }
}

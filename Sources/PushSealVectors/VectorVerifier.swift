@_spi(Vectors) import PushSealCore
import PushSealReceiver
import PushSealJSON

/// Runs a vector file (this project's or another in the same schema) through the Swift receiver
/// and sealer, the way Vectors/README.md tells a port to.
package enum VectorVerifier {
    /// The outcome of verifying one file.
    package struct Report: Sendable {
        /// Number of cases whose every check passed.
        package var passed = 0
        /// One line per failed case: its id and what differed.
        package var failures: [String] = []
        /// Number of failed cases.
        package var failed: Int { failures.count }
        /// Cases the file holds that are outside what PushSeal implements (the RFC 9180 file's psk modes).
        package var notApplicable = 0
        /// Lines to print before the summary (what was not applicable, and why).
        package var notes: [String] = []
        /// The closing line every implementation prints: `N passed, N failed`.
        package var summary: String { "\(passed) passed, \(failed) failed" }
    }

    /// Why a file cannot be verified at all.
    package enum FileError: Error, Sendable, CustomStringConvertible {
        /// The file is not strict JSON: what the strict parser reported.
        case notJSON(String)
        /// The file is JSON but in none of `pushseal_v1_test_schema`,
        /// `pushseal_v1_provider_test_schema`, `pushseal_v1_bundle_test_schema` and the RFC 9180 file's shape.
        case wrongSchema(String)

        package var description: String {
            switch self {
            case let .notJSON(error): "vector file is not strict JSON: \(error)"
            case let .wrongSchema(detail): "not a pushseal_v1_test_schema, pushseal_v1_provider_test_schema, pushseal_v1_bundle_test_schema or RFC 9180 HPKE vector file: \(detail)"
            }
        }
    }

    /// Verifies every case of a vector file: receiver vectors (`pushseal_v1_test_schema`) are
    /// opened and re-sealed, provider vectors (`pushseal_v1_provider_test_schema`) are sealed.
    package static func verify(fileBytes: [UInt8]) throws(FileError) -> Report {
        let root: JSONValue
        do {
            root = try JSONParser.parse(fileBytes, maximumDepth: 64)
        } catch {
            throw .notJSON("\(error)")
        }
        guard let object = root.objectValue else { throw .wrongSchema("the top level is not an object") }
        if object["schema"]?.stringValue == ProviderVectorSuite.schema { return try ProviderVectorVerifier.verify(object) }
        if object["schema"]?.stringValue == BundleVectorSuite.schema { return try BundleVectorVerifier.verify(object) }
        if object["suite"] != nil, object["vectors"] != nil { return try HPKEVectorVerifier.verify(object) }
        if object["schema"]?.stringValue == StoreVectorSuite.schema { return try report(object, check: StoreVectorSuite.check) }
        if object["schema"]?.stringValue == DeviceKeyVectorSuite.schema { return try report(object, check: DeviceKeyVectorSuite.check) }
        guard object["schema"]?.stringValue == VectorSuite.schema else {
            throw .wrongSchema("schema must be \"\(VectorSuite.schema)\", \"\(ProviderVectorSuite.schema)\" or \"\(StoreVectorSuite.schema)\"")
        }
        return try report(object, check: check)
    }

    /// Runs `check` on every case of a file's `tests` (one failure line per case with problems).
    static func report(_ object: JSONObject, check: (JSONObject) -> [String]) throws(FileError) -> Report {
        guard case let .array(tests)? = object["tests"], !tests.isEmpty else { throw .wrongSchema("no tests") }
        var report = Report()
        for test in tests {
            guard let fields = test.objectValue else { throw .wrongSchema("a test is not an object") }
            let problems = check(fields)
            if problems.isEmpty {
                report.passed += 1
            } else {
                let id = fields["tcId"]?.integerValue.map(String.init) ?? "?"
                report.failures.append("tcId \(id): " + problems.joined(separator: "; "))
            }
        }
        return report
    }

    /// Every problem with one case; empty when it passes.
    static func check(_ test: JSONObject) -> [String] {
        var problems: [String] = []
        func string(_ name: String) -> String? { test[name]?.stringValue }
        func bytes(_ name: String) -> [UInt8]? { string(name).flatMap(Hex.decode) }
        func integer(_ name: String) -> Int64? { test[name]?.integerValue }

        guard case .bool? = test["requiresFetch"], case .bool? = test["truncated"], case .bool? = test["conflict"],
              case .bool? = test["previousEnvelopeDiffers"]
        else { return ["requiresFetch, truncated, conflict or previousEnvelopeDiffers missing"] }
        guard let keyBytes = bytes("key"), let key = try? ConversationKey(rawBytes: keyBytes),
              let conversation = string("conversation"), let payload = string("payload"),
              let now = integer("now"), let maxAge = integer("maxAge"), let maxFutureSkew = integer("maxFutureSkew"),
              let result = string("result")
        else { return ["missing or malformed required field"] }
        if let kid = bytes("kid"), kid != key.id.bytes { problems.append("kid does not match key") }
        let expectedReason = test["reason"]?.stringValue
        let expectedDuplicate = test["duplicate"] == .bool(true)

        var inputs = [("payload", payload)]
        if let fcm = string("fcm") { inputs.append(("fcm", fcm)) }
        for (name, input) in inputs {
            // The store's state (locked, retire-by, duplicate log) belongs to the key wherever it
            // is filed: under its derived kid, or under `keySourceKid`.
            let source: any ReceiverKeySource
            let single = SingleConversationKey(key: key, conversation: conversation, retireBy: integer("keyRetireBy"))
            if let handedID = bytes("keySourceKid").flatMap({ KeyID(bytes: $0) }) {
                source = MisindexedKeySource(id: handedID, store: single)
            } else {
                source = single
            }
            if string("keyStore") == "locked" { single.setLocked("vector: key store locked") }
            if test["previouslySeen"] == .bool(true), let content = bytes("contentHex"),
               let parsed = try? NotificationContent(decoding: content) {
                // The same envelope (a replay), or another one: the decoded wire with its last byte changed.
                var envelope = string("wire").flatMap { try? Base64URL.decode($0) } ?? []
                if test["previousEnvelopeDiffers"] == .bool(true), !envelope.isEmpty { envelope[envelope.count - 1] ^= 0x01 }
                _ = single.recordPreviousDelivery(conversation: parsed.conversationID, messageID: parsed.messageID, envelope: envelope)
            }
            let receiver = Receiver(keySource: source, configuration: ReceiverConfiguration(
                maximumAge: maxAge, maximumFutureSkew: maxFutureSkew, clock: { now }, retainsContentBytes: true))
            let opened = receiver.open(.json(Array(input.utf8)))
            let got = opened.reason.map { "invalid/\($0.rawValue)" } ?? "valid"
            let expected = expectedReason.map { "invalid/\($0)" } ?? result
            if got != expected { problems.append("\(name): expected \(expected), got \(got)") }
            if expectedReason == nil {
                if opened.isDuplicate != expectedDuplicate { problems.append("\(name): duplicate flag \(opened.isDuplicate)") }
                if opened.isConflict != (test["conflict"] == .bool(true)) { problems.append("\(name): conflict flag \(opened.isConflict)") }
                if opened.contentBytes != bytes("contentHex") { problems.append("\(name): decrypted content differs") }
                if opened.requiresFetch != (test["requiresFetch"] == .bool(true)) { problems.append("\(name): requiresFetch \(opened.requiresFetch)") }
                if opened.isTruncated != (test["truncated"] == .bool(true)) { problems.append("\(name): truncated \(opened.isTruncated)") }
            }
        }
        if test["resealable"] == .bool(true) {
            if let sealKeyBytes = bytes("sealKey"), let sealKey = try? ConversationKey(rawBytes: sealKeyBytes),
               let salt = bytes("salt"), salt.count == Envelope.saltByteCount, let plaintext = bytes("plaintextHex"),
               Envelope.overheadByteCount + plaintext.count <= Envelope.maximumByteCount, !plaintext.isEmpty {
                if Envelope.seal(plaintext: plaintext, with: sealKey, salt: salt).wire != string("wire") {
                    problems.append("reseal differs from wire")
                }
                if let mk = bytes("messageKey"), mk != Envelope.messageKey(for: sealKey, salt: salt) {
                    problems.append("message key differs")
                }
            } else {
                problems.append("resealable case lacks sealKey, salt or plaintextHex")
            }
        }
        // Intermediates: the decoded wire, its header and tag, and the thread id of the sealing key.
        let envelope = string("wire").flatMap { try? Base64URL.decode($0) }.flatMap { $0.isEmpty ? nil : $0 }
        let expectedIntermediates: [(String, [UInt8]?)] = [
            ("envelopeHex", envelope),
            ("headerHex", envelope.flatMap { $0.count >= Envelope.headerByteCount ? Array($0.prefix(Envelope.headerByteCount)) : nil }),
            ("tagHex", envelope.flatMap { $0.count >= Envelope.minimumByteCount ? Array($0.suffix(ChaCha20Poly1305.tagByteCount)) : nil }),
        ]
        for (name, value) in expectedIntermediates where bytes(name) != value || (value == nil && test[name] != .null) {
            problems.append("\(name) differs")
        }
        let sealKeyThreadID = bytes("sealKey").flatMap { try? ConversationKey(rawBytes: $0) }?.opaqueThreadID
        if string("threadId") != sealKeyThreadID || (sealKeyThreadID == nil && test["threadId"] != .null) {
            problems.append("threadId differs")
        }
        if let block = integer("padBlock"), let content = bytes("contentHex"), let plaintext = bytes("plaintextHex"), block >= 1 {
            let length = Padding.paddedLength(contentLength: content.count, blockSize: Int(block))
            if Padding.pad(content, toLength: length) != plaintext { problems.append("padding differs") }
        }
        return problems
    }
}

/// A key source that files the key of `store` under an id that may not be its derived kid (a
/// port that stored the kid it was handed): the receiver must refuse a found key whose derived
/// kid is not the envelope's (`unknown_key`). Everything else — locked, the retire-by time, the
/// duplicate log — is the store's, as for a key filed under its own kid.
private struct MisindexedKeySource: ReceiverKeySource {
    let id: KeyID
    let store: SingleConversationKey

    func lookupKey(_ wanted: KeyID) -> KeyLookupResult {
        wanted == id ? store.lookupKey(store.keyID) : .notFound
    }

    func markDelivered(conversation: String, messageID: String, envelope: [UInt8]) -> DeliveryRecord {
        store.markDelivered(conversation: conversation, messageID: messageID, envelope: envelope)
    }
}

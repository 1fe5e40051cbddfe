import PushSealJSON
import PushSealCore

/// Runs the RFC 9180 Appendix A.2 file (`Vectors/external/rfc9180/`, DHKEM(X25519, HKDF-SHA256),
/// HKDF-SHA256, ChaCha20Poly1305) through PushSeal's HPKE: for the base and auth modes, the
/// derived key pairs, enc, every key-schedule value, every encryption (sealed and opened) and
/// every export. The psk modes are outside PushSeal's HPKE and are counted as not applicable.
enum HPKEVectorVerifier {
    typealias Suite = HybridPublicKeyEncryption

    static func verify(_ object: JSONObject) throws(VectorVerifier.FileError) -> VectorVerifier.Report {
        guard let suite = object["suite"]?.objectValue, suite["kem_id"]?.integerValue == 32, suite["kdf_id"]?.integerValue == 1,
              suite["aead_id"]?.integerValue == 3 else {
            throw .wrongSchema("an HPKE vector file must be for kem_id 32, kdf_id 1, aead_id 3")
        }
        guard case let .array(vectors)? = object["vectors"], !vectors.isEmpty else { throw .wrongSchema("no vectors") }
        var report = VectorVerifier.Report()
        for value in vectors {
            guard let vector = value.objectValue, let mode = vector["mode"]?.integerValue else { throw .wrongSchema("a vector has no mode") }
            guard mode == 0 || mode == 2 else {
                report.notApplicable += 1
                continue
            }
            let problems = check(vector, auth: mode == 2)
            if problems.isEmpty {
                report.passed += 1
            } else {
                report.failures.append("mode \(mode): " + problems.joined(separator: "; "))
            }
        }
        report.notes.append("\(report.notApplicable) RFC 9180 vectors in psk modes are outside PushSeal's HPKE (base and auth only)")
        return report
    }

    private static func hex(_ key: SecretKey) -> String { key.withUnsafeBytes { Hex.encode($0) } }

    static func check(_ vector: JSONObject, auth: Bool) -> [String] {
        func bytes(_ name: String) -> [UInt8]? { vector[name]?.stringValue.flatMap(Hex.decode) }
        guard let ikmE = bytes("ikmE"), let ikmR = bytes("ikmR"), let info = bytes("info"),
              let ephemeral = try? Suite.deriveKeyPair(inputKeyMaterial: SecretKey(bytes: ikmE)),
              let recipient = try? Suite.deriveKeyPair(inputKeyMaterial: SecretKey(bytes: ikmR)),
              case let .array(encryptions)? = vector["encryptions"], case let .array(exports)? = vector["exports"]
        else { return ["missing or malformed required field"] }
        var problems: [String] = []
        func expect(_ name: String, _ value: String) {
            if vector[name]?.stringValue != value { problems.append("\(name) differs") }
        }
        expect("skEm", hex(ephemeral.privateKey))
        expect("pkEm", Hex.encode(ephemeral.publicKey))
        expect("skRm", hex(recipient.privateKey))
        expect("pkRm", Hex.encode(recipient.publicKey))
        var sender: Suite.KeyPair?
        if auth {
            guard let ikmS = bytes("ikmS"), let derived = try? Suite.deriveKeyPair(inputKeyMaterial: SecretKey(bytes: ikmS)) else {
                return problems + ["missing ikmS"]
            }
            expect("skSm", hex(derived.privateKey))
            expect("pkSm", Hex.encode(derived.publicKey))
            sender = derived
        }
        guard let (enc, context) = try? Suite.setupSender(recipientPublicKey: recipient.publicKey, sender: sender, info: info, ephemeral: ephemeral),
              let receiving = try? Suite.setupRecipient(enc: enc, recipient: recipient, senderPublicKey: sender?.publicKey, info: info)
        else { return problems + ["setup failed"] }
        expect("enc", Hex.encode(enc))
        for (name, ctx) in [("sender", context), ("recipient", receiving)] {
            let values: [(String, String)] = [
                ("shared_secret", hex(ctx.sharedSecret)), ("key_schedule_context", Hex.encode(ctx.keyScheduleContext)),
                ("secret", hex(ctx.secret)), ("key", hex(ctx.key)), ("base_nonce", Hex.encode(ctx.baseNonce)),
                ("exporter_secret", hex(ctx.exporterSecret)),
            ]
            for (field, value) in values where vector[field]?.stringValue != value { problems.append("\(name) \(field) differs") }
        }
        for value in encryptions {
            guard let encryption = value.objectValue, let seq = encryption["seq"]?.integerValue,
                  let pt = encryption["pt"]?.stringValue.flatMap(Hex.decode), let aad = encryption["aad"]?.stringValue.flatMap(Hex.decode),
                  let ct = encryption["ct"]?.stringValue.flatMap(Hex.decode), let nonce = encryption["nonce"]?.stringValue.flatMap(Hex.decode)
            else { problems.append("malformed encryption"); continue }
            let sequence = UInt64(seq)
            if context.nonce(sequenceNumber: sequence) != nonce { problems.append("seq \(seq) nonce differs") }
            if (try? context.seal(pt, authenticating: aad, sequenceNumber: sequence)) != ct { problems.append("seq \(seq) seal differs") }
            if (try? receiving.open(ct, authenticating: aad, sequenceNumber: sequence)) != pt { problems.append("seq \(seq) open differs") }
        }
        for value in exports {
            guard let export = value.objectValue, let exporterContext = export["exporter_context"]?.stringValue.flatMap(Hex.decode),
                  let length = export["L"]?.integerValue, let expected = export["exported_value"]?.stringValue,
                  let exported = try? receiving.export(context: exporterContext, byteCount: Int(length))
            else { problems.append("malformed export"); continue }
            if hex(exported) != expected { problems.append("export differs") }
        }
        return problems
    }
}

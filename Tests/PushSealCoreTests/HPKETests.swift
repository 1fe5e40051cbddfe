import Foundation
import Testing
import PushSealCore

/// HPKE (RFC 9180) as PushSeal implements it above the primitives seam: every value of
/// Appendix A.2's base and auth modes, and every refusal.
@Suite("HPKE")
struct HPKETests {
    typealias Suite = HybridPublicKeyEncryption

    /// RFC 9180 Appendix A.2, vendored in `Vectors/external/rfc9180/`.
    static func rfc9180Vectors() throws -> [[String: Any]] {
        let url = externalVectorsDirectory.appendingPathComponent("rfc9180/rfc9180-x25519-sha256-chacha20poly1305.json")
        guard let data = FileManager.default.contents(atPath: url.path) else { throw TestFailure.missing("RFC 9180 vectors \(url.path)") }
        let root = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        return root["vectors"] as! [[String: Any]]
    }

    private static func bytes(_ key: SecretKey) -> [UInt8] { key.withUnsafeBytes { Array($0) } }

    @Test("RFC 9180 A.2 base and auth: key pairs, key schedule, all 12 encryptions and 6 exports")
    func appendixA2() throws {
        var encryptions = 0
        var exports = 0
        var modes: [Int] = []
        for vector in try Self.rfc9180Vectors() {
            let mode = vector["mode"] as! Int
            guard mode == 0 || mode == 2 else { continue }  // psk modes are not implemented
            modes.append(mode)
            #expect(vector["kem_id"] as? Int == 32 && vector["kdf_id"] as? Int == 1 && vector["aead_id"] as? Int == 3)
            func field(_ name: String) -> [UInt8] { hex(vector[name] as! String) }
            let ephemeral = try Suite.deriveKeyPair(inputKeyMaterial: SecretKey(bytes: field("ikmE")))
            let recipient = try Suite.deriveKeyPair(inputKeyMaterial: SecretKey(bytes: field("ikmR")))
            #expect(Self.bytes(ephemeral.privateKey) == field("skEm"), "mode \(mode) skEm")
            #expect(ephemeral.publicKey == field("pkEm"), "mode \(mode) pkEm")
            #expect(Self.bytes(recipient.privateKey) == field("skRm"), "mode \(mode) skRm")
            #expect(recipient.publicKey == field("pkRm"), "mode \(mode) pkRm")
            var sender: Suite.KeyPair?
            if mode == 2 {
                let derived = try Suite.deriveKeyPair(inputKeyMaterial: SecretKey(bytes: field("ikmS")))
                #expect(Self.bytes(derived.privateKey) == field("skSm"))
                #expect(derived.publicKey == field("pkSm"))
                sender = derived
            }
            let info = field("info")
            let (enc, context) = try Suite.setupSender(recipientPublicKey: recipient.publicKey, sender: sender, info: info, ephemeral: ephemeral)
            let receiving = try Suite.setupRecipient(enc: enc, recipient: recipient, senderPublicKey: sender?.publicKey, info: info)
            #expect(enc == field("enc"), "mode \(mode) enc")
            for ctx in [context, receiving] {
                #expect(Self.bytes(ctx.sharedSecret) == field("shared_secret"), "mode \(mode) shared_secret")
                #expect(ctx.keyScheduleContext == field("key_schedule_context"), "mode \(mode) key_schedule_context")
                #expect(Self.bytes(ctx.secret) == field("secret"), "mode \(mode) secret")
                #expect(Self.bytes(ctx.key) == field("key"), "mode \(mode) key")
                #expect(ctx.baseNonce == field("base_nonce"), "mode \(mode) base_nonce")
                #expect(Self.bytes(ctx.exporterSecret) == field("exporter_secret"), "mode \(mode) exporter_secret")
            }
            for encryption in vector["encryptions"] as! [[String: Any]] {
                let seq = UInt64(encryption["seq"] as! Int)
                let pt = hex(encryption["pt"] as! String), aad = hex(encryption["aad"] as! String), ct = hex(encryption["ct"] as! String)
                #expect(context.nonce(sequenceNumber: seq) == hex(encryption["nonce"] as! String), "mode \(mode) seq \(seq) nonce")
                #expect(try context.seal(pt, authenticating: aad, sequenceNumber: seq) == ct, "mode \(mode) seq \(seq) seal")
                #expect(try receiving.open(ct, authenticating: aad, sequenceNumber: seq) == pt, "mode \(mode) seq \(seq) open")
                encryptions += 1
            }
            for export in vector["exports"] as! [[String: Any]] {
                let value = try receiving.export(context: hex(export["exporter_context"] as! String), byteCount: export["L"] as! Int)
                #expect(Self.bytes(value) == hex(export["exported_value"] as! String), "mode \(mode) export")
                exports += 1
            }
        }
        #expect(modes == [0, 2])
        #expect(encryptions == 12)
        #expect(exports == 6)
    }

    @Test("auth mode: a different sender key, recipient key, info or aad fails; base and auth do not mix")
    func authModeRefusals() throws {
        let recipient = Suite.KeyPair.generate()
        let sender = Suite.KeyPair.generate()
        let info = Array("pushseal test".utf8)
        let (enc, context) = try Suite.setupSender(recipientPublicKey: recipient.publicKey, sender: sender, info: info)
        let ct = try context.seal([1, 2, 3], authenticating: [9])
        func open(recipient: Suite.KeyPair, sender: [UInt8]?, info: [UInt8], aad: [UInt8] = [9], ct: [UInt8] = ct) throws -> [UInt8] {
            try Suite.setupRecipient(enc: enc, recipient: recipient, senderPublicKey: sender, info: info).open(ct, authenticating: aad)
        }
        #expect(try open(recipient: recipient, sender: sender.publicKey, info: info) == [1, 2, 3])
        #expect(throws: PrimitiveError.authenticationFailure) { try open(recipient: recipient, sender: Suite.KeyPair.generate().publicKey, info: info) }
        #expect(throws: PrimitiveError.authenticationFailure) { try open(recipient: Suite.KeyPair.generate(), sender: sender.publicKey, info: info) }
        #expect(throws: PrimitiveError.authenticationFailure) { try open(recipient: recipient, sender: sender.publicKey, info: info + [0]) }
        #expect(throws: PrimitiveError.authenticationFailure) { try open(recipient: recipient, sender: sender.publicKey, info: info, aad: [8]) }
        #expect(throws: PrimitiveError.authenticationFailure) { try open(recipient: recipient, sender: nil, info: info) }
        var tampered = ct
        tampered[0] ^= 1
        #expect(throws: PrimitiveError.authenticationFailure) { try open(recipient: recipient, sender: sender.publicKey, info: info, ct: tampered) }
    }

    @Test("a small-order enc or sender key gives the all-zero DH, which is refused (RFC 9180 §7.1.4)")
    func smallOrderRefused() throws {
        let recipient = Suite.KeyPair.generate()
        let smallOrder = hex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800")
        #expect(throws: PrimitiveError.zeroSharedSecret) {
            try Suite.setupRecipient(enc: smallOrder, recipient: recipient, senderPublicKey: nil, info: [])
        }
        #expect(throws: PrimitiveError.zeroSharedSecret) {
            try Suite.setupRecipient(enc: Suite.KeyPair.generate().publicKey, recipient: recipient, senderPublicKey: smallOrder, info: [])
        }
        #expect(throws: PrimitiveError.zeroSharedSecret) {
            try Suite.setupSender(recipientPublicKey: smallOrder, sender: nil, info: [])
        }
        #expect(throws: PrimitiveError.incorrectKeySize(expected: 32, actual: 31)) {
            try Suite.setupRecipient(enc: [UInt8](repeating: 9, count: 31), recipient: recipient, senderPublicKey: nil, info: [])
        }
    }

    @Test("export refuses lengths HKDF cannot produce")
    func exportLength() throws {
        let recipient = Suite.KeyPair.generate()
        let (_, context) = try Suite.setupSender(recipientPublicKey: recipient.publicKey, sender: nil, info: [])
        #expect(throws: PrimitiveError.invalidOutputLength(8161)) { try context.export(context: [], byteCount: 8161) }
    }
}

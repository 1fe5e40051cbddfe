internal import COpenSSL

/// A private key for JSON Web Signatures, held by libcrypto (freed, and so wiped, on release):
/// ES256 for APNs provider tokens, RS256 for Google's OAuth2 service-account assertions.
final class SigningKey: @unchecked Sendable {
    /// The JWS algorithm the key signs with.
    enum Algorithm: String, Sendable {
        /// ECDSA P-256 with SHA-256; the signature is r || s, 32 bytes each (RFC 7518 §3.4).
        case es256 = "ES256"
        /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 §3.3).
        case rs256 = "RS256"
    }

    let algorithm: Algorithm
    private let key: OpaquePointer

    /// Loads a PEM private key and checks it is what `algorithm` needs (P-256, or RSA of at least
    /// 2048 bits). `pem` is wiped. `what` names the key in errors ("APNs key", "private_key").
    init(pem: inout [UInt8], algorithm: Algorithm, invalid: (String) -> DeliveryError) throws(DeliveryError) {
        defer { pem.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        ERR_clear_error()
        let loaded: OpaquePointer? = pem.withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            // A password callback that gives none: an encrypted key fails instead of prompting.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        ERR_clear_error()
        guard let loaded else { throw invalid("not a PEM private key (expected -----BEGIN PRIVATE KEY-----, unencrypted)") }
        switch algorithm {
        case .es256:
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_base_id(loaded) == EVP_PKEY_EC,
                EVP_PKEY_get_group_name(loaded, &name, name.count, &length) == 1,
                String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
            else {
                EVP_PKEY_free(loaded)
                throw invalid("not an EC P-256 key (APNs signs provider tokens with ES256)")
            }
        case .rs256:
            guard EVP_PKEY_get_base_id(loaded) == EVP_PKEY_RSA, EVP_PKEY_get_bits(loaded) >= 2048 else {
                EVP_PKEY_free(loaded)
                throw invalid("not an RSA key of at least 2048 bits (Google signs with RS256)")
            }
        }
        self.key = loaded
        self.algorithm = algorithm
    }

    deinit { EVP_PKEY_free(key) }

    /// The JWS signature of `message` (the ASCII `header.claims`).
    func sign(_ message: [UInt8]) throws(DeliveryError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .library("libcrypto: out of memory") }
        defer { EVP_MD_CTX_free(context) }
        var length = 0
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1,
            EVP_DigestSign(context, nil, &length, message, message.count) == 1
        else {
            ERR_clear_error()
            throw .library("libcrypto: cannot sign with the \(algorithm.rawValue) key")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            ERR_clear_error()
            throw .library("libcrypto: \(algorithm.rawValue) signing failed")
        }
        signature.removeSubrange(length...)
        return algorithm == .es256 ? try Self.rawSignature(der: signature) : signature
    }

    /// DER `ECDSA-Sig-Value` → r || s, each left-padded to 32 bytes (JWS form).
    private static func rawSignature(der: [UInt8]) throws(DeliveryError) -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw .library("libcrypto: malformed ECDSA signature") }
        defer { ECDSA_SIG_free(parsed) }
        var raw = [UInt8](repeating: 0, count: 64)
        let ok = raw.withUnsafeMutableBufferPointer { out in
            BN_bn2binpad(ECDSA_SIG_get0_r(parsed), out.baseAddress, 32) == 32
                && BN_bn2binpad(ECDSA_SIG_get0_s(parsed), out.baseAddress! + 32, 32) == 32
        }
        guard ok else { throw .library("libcrypto: ECDSA signature component too long") }
        return raw
    }
}

/// Overwrites `bytes` with zeros (libcrypto's `OPENSSL_cleanse`, which the compiler keeps).
func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
}

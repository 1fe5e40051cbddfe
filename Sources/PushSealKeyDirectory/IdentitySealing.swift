import PushSealCore

/// How an `identities` row is sealed at rest under the store master key `MK` (Docs/KEY-STORE.md
/// §3), like a conversation key but with its own label and associated data:
///
/// ```
/// s    = 24 fresh random bytes per row
/// ik   = HKDF-Expand-SHA256(MK, "pushseal v1 store identity" || s, 32)
/// AD   = 0x03 || kind (1 byte: 1 device, 2 provider, 3 pinned, 4 registered device)
///        || id(16) || public key(32) || int64be(created_at)
///        [|| 0x00 (not revoked) or 0x01 || int64be(revoked_at)]   (registered devices only)
/// blob = 0x03 || s || ChaCha20-Poly1305(ik, nonce = 12 zero bytes, aad = AD, secret)
/// ```
///
/// `secret` is the 32-byte X25519 private key of a device or provider key, and empty for a
/// pinned public key or a registered device: then the blob is a tag over the row, so an edited
/// file or database cannot pin a key, register a device or take back a revocation. The same
/// rows on PostgreSQL (`pushseal_identities`, `pushseal_devices`) are sealed the same way.
package enum IdentitySealing {
    /// Format tag of a sealed identity.
    package static let format: UInt8 = 0x03
    package static let info: [UInt8] = Array("pushseal v1 store identity".utf8)
    package static let saltByteCount = ItemSealing.saltByteCount

    /// The kinds of identity rows.
    package enum Kind: String, CaseIterable, Sendable {
        case device, provider, pinned
        /// A device registered with the provider's key directory (its public key only).
        case registered

        var tag: UInt8 {
            switch self {
            case .device: 1
            case .provider: 2
            case .pinned: 3
            case .registered: 4
            }
        }

        /// Whether rows of this kind hold a private key.
        var hasPrivateKey: Bool { self == .device || self == .provider }
    }

    /// One row's public columns: what its secret is bound to.
    package struct Binding: Sendable {
        package var kind: Kind
        package var id: [UInt8]
        package var publicKey: [UInt8]
        package var createdAt: Int64
        /// When a registered device was revoked (registered devices only; nil: not revoked).
        package var revokedAt: Int64?

        package init(kind: Kind, id: [UInt8], publicKey: [UInt8], createdAt: Int64, revokedAt: Int64? = nil) {
            (self.kind, self.id, self.publicKey, self.createdAt, self.revokedAt) = (kind, id, publicKey, createdAt, revokedAt)
        }

        /// The associated data the row's blob is sealed with (every column of the row).
        package var associatedData: [UInt8] {
            var ad: [UInt8] = [format, kind.tag]
            ad += id
            ad += publicKey
            ad += withUnsafeBytes(of: UInt64(bitPattern: createdAt).bigEndian) { Array($0) }
            if kind == .registered {
                if let revokedAt {
                    ad.append(1)
                    ad += withUnsafeBytes(of: UInt64(bitPattern: revokedAt).bigEndian) { Array($0) }
                } else {
                    ad.append(0)
                }
            }
            return ad
        }
    }

    private static func rowKey(_ masterKey: MasterKey, salt: ArraySlice<UInt8>) -> SecretKey {
        salt.withUnsafeBytes { masterKey.expand(info: info, salt: $0) }
    }

    /// Seals the private key of `pair` for the row `binding`, or nothing (a tag) for a pinned key
    /// or a registered device (`pair` nil), with a fresh salt (`salt` only for test vectors).
    package static func seal(_ pair: IdentityKeyPair?, binding: Binding, masterKey: MasterKey, salt: [UInt8]? = nil) -> [UInt8] {
        guard let pair else { return seal(UnsafeRawBufferPointer(start: nil, count: 0), binding: binding, masterKey: masterKey, salt: salt) }
        return pair.withUnsafePrivateKeyBytes { seal($0, binding: binding, masterKey: masterKey, salt: salt) }
    }

    /// Seals `secret` (a private key, or nothing for a pinned key) for the row `binding`, with a
    /// fresh salt (`salt` only for test vectors).
    package static func seal(_ secret: UnsafeRawBufferPointer, binding: Binding, masterKey: MasterKey, salt: [UInt8]? = nil) -> [UInt8] {
        let salt = salt ?? HedgedRandom.bytes(count: saltByteCount, label: "at-rest salt")
        return ItemSealing.sealAtRest(
            secret, format: format, salt: salt, rowKey: rowKey(masterKey, salt: salt[...]), associatedData: binding.associatedData)
    }

    /// Opens a row: the private key (nil for a pinned row) when the blob authenticates with the
    /// row's columns and, for a key pair, its private key gives the row's public key; throws
    /// ``KeyDirectoryError/invalidStore(_:)`` otherwise (an edited or damaged row).
    package static func unseal(_ blob: [UInt8], binding: Binding, masterKey: MasterKey) throws(KeyDirectoryError) -> IdentityKeyPair? {
        let secretCount = binding.kind.hasPrivateKey ? IdentityKeyPair.byteCount : 0
        guard blob.count == 1 + saltByteCount + secretCount + ChaCha20Poly1305.tagByteCount, blob[0] == format else {
            throw .invalidStore("a \(binding.kind.rawValue) identity row is malformed")
        }
        let key = rowKey(masterKey, salt: blob[1...saltByteCount])
        guard let secret = ItemSealing.openAtRest(blob, count: secretCount, rowKey: key, associatedData: binding.associatedData) else { throw .invalidStore("a \(binding.kind.rawValue) identity row does not authenticate under the master key") }
        guard binding.kind.hasPrivateKey else { return nil }
        let pair = try? secret.withUnsafeBytes { try IdentityKeyPair(privateKeyBytes: $0) }
        guard let pair, pair.publicKey == binding.publicKey else {
            throw .invalidStore("a \(binding.kind.rawValue) identity row's private key does not match its public key")
        }
        return pair
    }
}

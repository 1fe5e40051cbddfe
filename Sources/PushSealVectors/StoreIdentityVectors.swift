import PushSealJSON
import PushSealKeyDirectory
import PushSealKeyStore
@_spi(Vectors) import PushSealCore

/// The key-store vectors of the identity rows that the SQLite store and the PostgreSQL directory
/// share (Docs/KEY-STORE.md §3.6, §3.7: `identities`, whose provider key pairs are also
/// `pushseal_identities`, and `devices` / `pushseal_devices`) and of the provider-key record:
/// kinds `identity` and `providerKeyRecord`. Each row is sealed by the store's own code under the
/// file's master key with a fixed salt; the `invalid` cases are such a row read back with one
/// column edited (or a record with its kid edited), which the store refuses.
extension StoreVectorSuite {
    /// One identity row of a case: its columns and, for a device or provider key, its key pair.
    struct IdentityRowCase {
        var kind: IdentitySealing.Kind
        var pair: IdentityKeyPair?
        var publicKey: [UInt8]
        var createdAt: Int64
        var revokedAt: Int64?

        /// A device or provider key row (its id: the pair's device or provider key id).
        static func keyPair(_ kind: IdentitySealing.Kind, _ pair: IdentityKeyPair, createdAt: Int64) -> Self {
            .init(kind: kind, pair: pair, publicKey: pair.publicKey, createdAt: createdAt)
        }

        /// A pinned provider key or a registered device: a public key only.
        static func publicOnly(_ kind: IdentitySealing.Kind, _ publicKey: [UInt8], createdAt: Int64, revokedAt: Int64? = nil) -> Self {
            .init(kind: kind, publicKey: publicKey, createdAt: createdAt, revokedAt: revokedAt)
        }

        /// The row's id, as the store writes it: the device key id for a device key or a
        /// registration, the provider key id for a provider key or a pinned key.
        var id: [UInt8] {
            (kind == .device || kind == .registered ? KeyBundle.deviceKeyID(of: publicKey) : KeyBundle.providerKeyID(of: publicKey)).bytes
        }

        var binding: IdentitySealing.Binding {
            .init(kind: kind, id: id, publicKey: publicKey, createdAt: createdAt, revokedAt: kind == .registered ? revokedAt : nil)
        }
    }

    /// The identity and provider-key-record cases (without tcId), in file order.
    static func identityCases() -> [[JSONObject.Member]] {
        func hex(_ bytes: [UInt8]) -> JSONValue { .string(Hex.encode(bytes)) }
        func number(_ value: Int64) -> JSONValue { .number(String(value)) }
        let master: JSONObject.Member = .init(name: "masterKey", value: hex(masterKey))
        var cases: [[JSONObject.Member]] = []

        /// `row` sealed with `salt`, read back as `readBack` (the same row, or one column edited:
        /// an invalid case).
        func appendIdentity(_ comment: String, _ row: IdentityRowCase, salt label: String, readBack: IdentityRowCase? = nil) {
            let salt = VectorSuite.salt(label)
            let sealed = StoreVectorValues.sealedIdentity(row.binding, pair: row.pair, masterKey: masterKey, salt: salt).sealed
            let read = readBack ?? row
            var members: [JSONObject.Member] = [
                .init(name: "kind", value: .string("identity")), .init(name: "comment", value: .string(comment)), master,
                .init(name: "identityKind", value: .string(read.kind.rawValue)),
                .init(name: "privateKey", value: row.pair.map { pair in pair.withUnsafePrivateKeyBytes { hex(Array($0)) } } ?? .null),
                .init(name: "publicKey", value: hex(read.publicKey)), .init(name: "id", value: hex(read.id)),
                .init(name: "createdAt", value: number(read.createdAt)),
            ]
            if read.kind == .registered { members.append(.init(name: "revokedAt", value: read.revokedAt.map(number) ?? .null)) }
            members += [
                .init(name: "salt", value: hex(salt)),
                .init(name: "associatedDataHex", value: hex(read.binding.associatedData)), .init(name: "sealedHex", value: hex(sealed)),
                .init(name: "result", value: .string(readBack == nil ? "valid" : "invalid")),
            ]
            cases.append(members)
        }

        let created: Int64 = 1_764_400_000, revoked: Int64 = 1_764_486_400
        let device = BundleVectorSuite.identity("store device key"), provider = BundleVectorSuite.identity("store provider key")
        let pinned = BundleVectorSuite.identity("store pinned provider key").publicKey
        let registered = BundleVectorSuite.identity("store registered device").publicKey
        let revokedDevice = BundleVectorSuite.identity("store revoked device").publicKey

        let deviceRow = IdentityRowCase.keyPair(.device, device, createdAt: created)
        appendIdentity("The device key (identities, kind device): its X25519 private key sealed", deviceRow, salt: "store identity 1")
        var edited = deviceRow
        edited.createdAt += 1
        appendIdentity("The device key row with created_at edited (+1 s): does not open", deviceRow, salt: "store identity 1", readBack: edited)
        let otherPair = BundleVectorSuite.identity("store other device key")
        appendIdentity("A device key row whose blob seals another key pair's private key: opens, but the private key does not give the row's public key",
                       .init(kind: .device, pair: otherPair, publicKey: device.publicKey, createdAt: created), salt: "store identity 2",
                       readBack: deviceRow)

        let providerRow = IdentityRowCase.keyPair(.provider, provider, createdAt: created)
        appendIdentity("A provider key pair (identities / pushseal_identities, kind provider)", providerRow, salt: "store identity 3")
        edited = providerRow
        edited.createdAt = 0
        appendIdentity("The provider key row with created_at edited (to 0): does not open", providerRow, salt: "store identity 3", readBack: edited)
        appendIdentity("A provider key pair created at 2^63 - 1 (integers read exactly)", .keyPair(.provider, provider, createdAt: .max),
                       salt: "store identity 4")

        let pinnedRow = IdentityRowCase.publicOnly(.pinned, pinned, createdAt: created)
        appendIdentity("A pinned provider public key (kind pinned): a tag over the row, nothing sealed", pinnedRow, salt: "store identity 5")
        appendIdentity("The pinned key's tag on another public key (and its id): a key pinned without the master key, does not open",
                       pinnedRow, salt: "store identity 5", readBack: .publicOnly(.pinned, provider.publicKey, createdAt: created))

        let registeredRow = IdentityRowCase.publicOnly(.registered, registered, createdAt: created)
        appendIdentity("A registered device, not revoked (devices / pushseal_devices)", registeredRow, salt: "store identity 6")
        appendIdentity("The registration's tag on another device's public key (and its id): a device registered without the master key, does not open",
                       registeredRow, salt: "store identity 6", readBack: .publicOnly(.registered, revokedDevice, createdAt: created))
        edited = registeredRow
        edited.createdAt -= 86_400
        appendIdentity("The registration with created_at edited (one day earlier): does not open", registeredRow, salt: "store identity 6",
                       readBack: edited)

        let revokedRow = IdentityRowCase.publicOnly(.registered, revokedDevice, createdAt: created, revokedAt: revoked)
        appendIdentity("A registered device revoked a day after its registration", revokedRow, salt: "store identity 7")
        edited = revokedRow
        edited.revokedAt = nil
        appendIdentity("The revoked registration with revoked_at cleared: a revocation taken back, does not open", revokedRow,
                       salt: "store identity 7", readBack: edited)
        edited.revokedAt = .max
        appendIdentity("The revoked registration with revoked_at edited (to 2^63 - 1): does not open", revokedRow, salt: "store identity 7",
                       readBack: edited)

        /// The record of `kid`, read back with the kid `readBack` in its first 16 bytes (invalid).
        func appendRecord(_ comment: String, _ kid: KeyID, readBack: KeyID? = nil) {
            var value = StoreVectorValues.providerKeyRecord(kid, masterKey: masterKey)
            if let readBack { value.replaceSubrange(0..<KeyID.byteCount, with: readBack.bytes) }
            cases.append([
                .init(name: "kind", value: .string("providerKeyRecord")), .init(name: "comment", value: .string(comment)), master,
                .init(name: "kid", value: hex((readBack ?? kid).bytes)), .init(name: "valueHex", value: hex(value)),
                .init(name: "result", value: .string(readBack == nil ? "valid" : "invalid")),
            ])
        }
        appendRecord("The provider-key record (meta / pushseal_meta provider_key) naming the provider key pair", provider.providerKeyID)
        appendRecord("The record with its kid edited to another provider key's, its tag kept: does not verify", provider.providerKeyID,
                     readBack: KeyBundle.providerKeyID(of: pinned))
        return cases
    }

    /// Every problem with one `identity` case; empty when it passes.
    static func checkIdentity(_ test: JSONObject, masterKey master: [UInt8]) -> [String] {
        func bytes(_ name: String) -> [UInt8]? { test[name]?.stringValue.flatMap(Hex.decode) }
        guard let kind = test["identityKind"]?.stringValue.flatMap(IdentitySealing.Kind.init(rawValue:)),
              let publicKey = bytes("publicKey"), let id = bytes("id"), let createdAt = test["createdAt"]?.integerValue,
              let salt = bytes("salt"), salt.count == IdentitySealing.saltByteCount, let sealed = bytes("sealedHex"),
              let result = test["result"]?.stringValue, result == "valid" || result == "invalid"
        else { return ["malformed identity case"] }
        var pair: IdentityKeyPair?
        if case .string = test["privateKey"] {
            guard let privateKey = bytes("privateKey"), let opened = try? IdentityKeyPair(privateKeyBytes: privateKey) else { return ["malformed privateKey"] }
            pair = opened
        }
        var revokedAt: Int64?
        if kind == .registered {
            switch test["revokedAt"] {
            case .null?: revokedAt = nil
            case let value?: guard let time = value.integerValue else { return ["malformed revokedAt"] }; revokedAt = time
            case nil: return ["a registered device case without revokedAt"]
            }
        }
        let binding = IdentitySealing.Binding(kind: kind, id: id, publicKey: publicKey, createdAt: createdAt, revokedAt: revokedAt)
        var problems = bytes("associatedDataHex") == binding.associatedData ? [] : ["associatedDataHex differs"]
        let read: IdentityKeyPair?
        do {
            read = try StoreVectorValues.readIdentity(binding, sealed: sealed, masterKey: master)
        } catch {
            return problems + (result == "invalid" ? [] : ["the store refuses the row: \(error)"])
        }
        guard result == "valid" else { return problems + ["the store reads a row that must not open"] }
        if StoreVectorValues.sealedIdentity(binding, pair: pair, masterKey: master, salt: salt).sealed != sealed { problems.append("sealedHex differs") }
        let opened = read.map { pair in pair.withUnsafePrivateKeyBytes { Array($0) } }
        if opened != pair.map({ pair in pair.withUnsafePrivateKeyBytes { Array($0) } }) { problems.append("the opened private key differs") }
        return problems
    }

    /// Every problem with one `providerKeyRecord` case; empty when it passes.
    static func checkProviderKeyRecord(_ test: JSONObject, masterKey master: [UInt8]) -> [String] {
        guard let kidBytes = test["kid"]?.stringValue.flatMap(Hex.decode), let kid = KeyID(bytes: kidBytes),
              let value = test["valueHex"]?.stringValue.flatMap(Hex.decode), let result = test["result"]?.stringValue,
              result == "valid" || result == "invalid"
        else { return ["malformed providerKeyRecord case"] }
        let recorded = StoreVectorValues.recordedProviderKey(value, masterKey: master)
        if result == "invalid" { return recorded == nil ? [] : ["the record verifies but must not"] }
        return (recorded == kid ? [] : ["the record does not name kid"])
            + (StoreVectorValues.providerKeyRecord(kid, masterKey: master) == value ? [] : ["valueHex differs"])
    }
}

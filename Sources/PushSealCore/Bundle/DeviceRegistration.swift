import PushSealJSON

/// What a device sends to its backend next to its push token (SPEC §16.1): its device public key,
/// the device key id derived from it, and the suite. Not secret.
public struct DeviceRegistration: Sendable, Equatable {
    /// The only suite of bundle format v1.
    public static let suite = "pushseal-v1-x25519"

    /// The device's 32-byte X25519 public key.
    public let publicKey: [UInt8]
    /// HKDF-Expand(publicKey, "pushseal v1 device key id", 16).
    public var deviceKeyID: KeyID { KeyBundle.deviceKeyID(of: publicKey) }

    /// The registration of a device public key (32 bytes).
    public init(publicKey: [UInt8]) throws(KeyBundleSealingError) {
        guard publicKey.count == IdentityKeyPair.byteCount else {
            throw .invalidDevicePublicKey("must be \(IdentityKeyPair.byteCount) bytes, is \(publicKey.count)")
        }
        self.publicKey = publicKey
    }

    /// Parses and checks the JSON form: strict JSON, an object with `suite` equal to ``suite``,
    /// `publicKey` 32 bytes of strict base64url and `deviceKeyId` the id derived from it.
    /// Other members are ignored.
    public init(json: some Collection<UInt8>) throws(KeyBundleSealingError) {
        let root: JSONValue
        do { root = try JSONParser.parse(json) } catch { throw .invalidDevicePublicKey("the registration is not strict JSON: \(error)") }
        guard let object = root.objectValue else { throw .invalidDevicePublicKey("the registration is not a JSON object") }
        guard object["suite"]?.stringValue == Self.suite else {
            throw .invalidDevicePublicKey("the registration's suite must be \"\(Self.suite)\"")
        }
        guard let text = object["publicKey"]?.stringValue, let key = try? Base64URL.decode(text) else {
            throw .invalidDevicePublicKey("the registration's publicKey must be a base64url string")
        }
        try self.init(publicKey: key)
        guard object["deviceKeyId"]?.stringValue == deviceKeyID.base64URL else {
            throw .invalidDevicePublicKey("the registration's deviceKeyId is not the id of its publicKey")
        }
    }

    /// The compact JSON form: `{"suite":…,"deviceKeyId":…,"publicKey":…}` (base64url values).
    public var json: String {
        var writer = JSONWriter()
        writer.append(.object(JSONObject(members: [
            .init(name: "suite", value: .string(Self.suite)),
            .init(name: "deviceKeyId", value: .string(deviceKeyID.base64URL)),
            .init(name: "publicKey", value: .string(Base64URL.encode(publicKey))),
        ])))
        return writer.text
    }
}

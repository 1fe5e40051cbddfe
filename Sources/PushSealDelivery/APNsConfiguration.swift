/// Token-based APNs authentication: the team's signing key (`AuthKey_<key id>.p8`), its key id
/// and the team id. The key stays inside libcrypto; nothing here prints it.
public struct APNsCredentials: Sendable {
    /// The 10-character key id Apple shows for the key.
    public let keyID: String
    /// The 10-character team id.
    public let teamID: String
    let key: SigningKey

    /// Loads the `.p8` contents (PEM PKCS#8, EC P-256) and checks the ids (10 letters and digits
    /// each), before any request. `privateKeyPEM` is wiped.
    public init(privateKeyPEM: inout [UInt8], keyID: String, teamID: String) throws(DeliveryError) {
        try Self.checkIdentity(keyID, field: "key id")
        try Self.checkIdentity(teamID, field: "team id")
        self.key = try SigningKey(pem: &privateKeyPEM, algorithm: .es256) { .invalidAPNsKey($0) }
        self.keyID = keyID
        self.teamID = teamID
    }

    /// Apple's key ids and team ids: 10 letters and digits (the developer account shows both).
    private static func checkIdentity(_ value: String, field: String) throws(DeliveryError) {
        guard value.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }) else {
            throw .invalidAPNsIdentity(field: field, detail: "must be letters and digits only (Apple's ids are 10 of them)")
        }
        guard value.utf8.count == 10 else {
            throw .invalidAPNsIdentity(field: field, detail: "must be 10 characters (Apple's ids are 10 letters and digits), not \(value.utf8.count)")
        }
    }

    /// A provider token: `{"alg":"ES256","kid":…}.{"iss":<team>,"iat":<now>}`, signed.
    func providerToken(issuedAt: Int64) throws(DeliveryError) -> String {
        try JSONWebToken.make(
            header: JSONWebToken.object([("alg", .string("ES256")), ("kid", .string(keyID))]),
            claims: JSONWebToken.object([("iss", .string(teamID)), ("iat", .integer(issuedAt))]),
            key: key)
    }
}

/// Where APNs requests go.
public enum APNsEnvironment: Sendable, Equatable {
    /// `https://api.push.apple.com` (App Store, TestFlight and ad hoc builds).
    case production
    /// `https://api.sandbox.push.apple.com` (development builds).
    case sandbox
    /// Another base URL (`https://host[:port]`), e.g. a local emulator or a relay.
    case custom(baseURL: String)

    /// The base URL, without a trailing slash.
    public var baseURL: String {
        switch self {
        case .production: "https://api.push.apple.com"
        case .sandbox: "https://api.sandbox.push.apple.com"
        case let .custom(baseURL): baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        }
    }
}

/// What a ``PushSender`` needs for APNs.
public struct APNsConfiguration: Sendable {
    /// The signing key and ids.
    public var credentials: APNsCredentials
    /// Production, sandbox, or a custom base URL.
    public var environment: APNsEnvironment

    /// A configuration; checks the base URL.
    public init(credentials: APNsCredentials, environment: APNsEnvironment = .production) throws(DeliveryError) {
        try checkHTTPSURL(environment.baseURL, field: "APNs base URL")
        self.credentials = credentials
        self.environment = environment
    }

    /// Checks an APNs device token: 16 to 400 hexadecimal digits (Apple's are 64 today).
    public static func validate(deviceToken: String) throws(DeliveryError) {
        let count = deviceToken.utf8.count
        guard count >= 16, count <= 400 else { throw .invalidDeviceToken("\(count) characters; expected 16 to 400 hexadecimal digits") }
        for (offset, byte) in deviceToken.utf8.enumerated() {
            let isHex = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
            guard isHex else { throw .invalidDeviceToken("character \(offset + 1) is not a hexadecimal digit") }
        }
    }
}

/// Checks that `url` is `https://` followed by a host.
func checkHTTPSURL(_ url: String, field: String) throws(DeliveryError) {
    guard url.hasPrefix("https://"), url.utf8.count > 8 else { throw .invalidURL(field: field, detail: "must start with https:// and name a host") }
    guard url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
        throw .invalidURL(field: field, detail: "must be visible ASCII without spaces")
    }
}

/// The APNs provider token in use: minted at most every ``minimumRefreshInterval`` by a
/// rejection, reused until ``lifetime`` (APNs rejects tokens older than an hour and refreshes
/// more often than every 20 minutes with `TooManyProviderTokenUpdates`).
final class APNsTokenCache {
    let credentials: APNsCredentials
    let lifetime: Int64
    let minimumRefreshInterval: Int64
    private(set) var token: String?
    private var issuedAt: Int64 = 0
    private var lastForcedRefresh: Int64?

    init(credentials: APNsCredentials, lifetime: Int64, minimumRefreshInterval: Int64) {
        self.credentials = credentials
        self.lifetime = lifetime
        self.minimumRefreshInterval = minimumRefreshInterval
    }

    /// The token to send now (minted when there is none or it reached its lifetime).
    func current(now: Int64) throws(DeliveryError) -> String {
        if let token, now - issuedAt < lifetime, now >= issuedAt { return token }
        return try mint(now: now)
    }

    /// After APNs answered 403 to a request carrying `rejected`: the token to retry with, or nil
    /// when none can be had (the rejected token is still current and one was already forced
    /// within the minimum refresh interval).
    func afterRejection(of rejected: String, now: Int64) throws(DeliveryError) -> String? {
        if let token, token != rejected { return token }
        if let last = lastForcedRefresh, now - last < minimumRefreshInterval { return nil }
        lastForcedRefresh = now
        return try mint(now: now)
    }

    private func mint(now: Int64) throws(DeliveryError) -> String {
        let minted = try credentials.providerToken(issuedAt: now)
        token = minted
        issuedAt = now
        return minted
    }
}

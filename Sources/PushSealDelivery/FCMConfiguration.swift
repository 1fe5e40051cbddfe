internal import PushSealCore
import PushSealJSON

/// A Google service account (the JSON file the Firebase console downloads), as needed to
/// obtain OAuth2 access tokens for FCM HTTP v1. The private key stays inside libcrypto.
public struct FCMServiceAccount: Sendable {
    /// Google's OAuth2 token endpoint, used when the file has no `token_uri`.
    public static let defaultTokenURL = "https://oauth2.googleapis.com/token"
    /// The scope FCM sending needs.
    public static let messagingScope = "https://www.googleapis.com/auth/firebase.messaging"

    /// `project_id`.
    public let projectID: String
    /// `client_email`: the JWT issuer.
    public let clientEmail: String
    /// `private_key_id`, sent as the JWT `kid` when present.
    public let privateKeyID: String?
    /// `token_uri`.
    public let tokenURL: String
    let key: SigningKey

    /// Parses the service-account JSON (`json` is wiped), before any request: `project_id`,
    /// `client_email` (an e-mail address) and `private_key` (RSA, at least 2048 bits) are
    /// required; `type`, when present, must be `service_account`; `token_uri`, when present, an
    /// `https://` URL.
    public init(json: inout [UInt8]) throws(DeliveryError) {
        defer { wipe(&json) }
        let value: JSONValue
        do {
            value = try JSONParser.parse(json, maximumDepth: 4)
        } catch {
            throw .invalidServiceAccount(field: "file", detail: "is not JSON (\(error.message) at byte \(error.offset))")
        }
        guard case let .object(object) = value else { throw .invalidServiceAccount(field: "file", detail: "is not a JSON object") }
        func string(_ name: String, required: Bool) throws(DeliveryError) -> String? {
            guard let member = object[name] else {
                if required { throw .invalidServiceAccount(field: name, detail: "is missing") }
                return nil
            }
            guard case let .string(text) = member, !text.isEmpty else {
                throw .invalidServiceAccount(field: name, detail: "must be a non-empty string")
            }
            return text
        }
        if let type = try string("type", required: false), type != "service_account" {
            throw .invalidServiceAccount(field: "type", detail: "is '\(type)', expected 'service_account'")
        }
        projectID = try string("project_id", required: true)!
        clientEmail = try string("client_email", required: true)!
        let emailParts = clientEmail.split(separator: "@", omittingEmptySubsequences: false)
        guard emailParts.count == 2, !emailParts[0].isEmpty, emailParts[1].contains("."),
            clientEmail.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw .invalidServiceAccount(field: "client_email", detail: "is not an e-mail address (a service account's is <name>@<project>.iam.gserviceaccount.com)")
        }
        privateKeyID = try string("private_key_id", required: false)
        tokenURL = try string("token_uri", required: false) ?? Self.defaultTokenURL
        try checkHTTPSURL(tokenURL, field: "service account token_uri")
        guard projectID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) else {
            throw .invalidServiceAccount(field: "project_id", detail: "must be visible ASCII without '/'")
        }
        var pem = Array(try string("private_key", required: true)!.utf8)
        key = try SigningKey(pem: &pem, algorithm: .rs256) { .invalidServiceAccount(field: "private_key", detail: "is \($0)") }
    }

    /// The signed assertion for the OAuth2 JWT-bearer grant (RFC 7523), valid for an hour.
    func assertion(audience: String, issuedAt: Int64) throws(DeliveryError) -> String {
        var header: [(String, JSONWebToken.Member)] = [("alg", .string("RS256")), ("typ", .string("JWT"))]
        if let privateKeyID { header.append(("kid", .string(privateKeyID))) }
        return try JSONWebToken.make(
            header: JSONWebToken.object(header),
            claims: JSONWebToken.object([
                ("iss", .string(clientEmail)), ("scope", .string(Self.messagingScope)), ("aud", .string(audience)),
                ("iat", .integer(issuedAt)), ("exp", .integer(issuedAt + 3600)),
            ]),
            key: key)
    }
}

/// What a ``PushSender`` needs for FCM.
public struct FCMConfiguration: Sendable {
    /// The service account.
    public var serviceAccount: FCMServiceAccount
    /// `messages:send` URL; default `https://fcm.googleapis.com/v1/projects/<project_id>/messages:send`.
    public var sendURL: String
    /// The OAuth2 token endpoint; default the account's `token_uri`.
    public var tokenURL: String

    /// A configuration; checks the URLs.
    public init(serviceAccount: FCMServiceAccount, sendURL: String? = nil, tokenURL: String? = nil) throws(DeliveryError) {
        self.serviceAccount = serviceAccount
        self.sendURL = sendURL ?? "https://fcm.googleapis.com/v1/projects/\(serviceAccount.projectID)/messages:send"
        self.tokenURL = tokenURL ?? serviceAccount.tokenURL
        try checkHTTPSURL(self.sendURL, field: "FCM send URL")
        try checkHTTPSURL(self.tokenURL, field: "FCM token URL")
    }
}

/// The OAuth2 access token for FCM, fetched with the service account's assertion and reused
/// until ``refreshMargin`` (at most half its lifetime) before it expires.
final class FCMAccessTokens {
    /// Why no token could be had.
    enum Failure: Error {
        /// The token endpoint refused the assertion (`invalid_grant`, …): no retry helps.
        case refused(status: Int, reason: String)
        /// The endpoint answered 429/5xx or without a token: try again later.
        case unavailable(status: Int?, reason: String)
        /// The endpoint could not be reached (the sender treats it like a send's transport failure).
        case transport(TransportFailure)
    }

    let configuration: FCMConfiguration
    let refreshMargin: Int64
    private var token: String?
    private var refreshAt: Int64 = 0
    /// A refused grant stays refused; an unavailable endpoint is not asked again before this.
    private var failure: (Failure, until: Int64)?

    init(configuration: FCMConfiguration, refreshMargin: Int64) {
        self.configuration = configuration
        self.refreshMargin = refreshMargin
    }

    /// The token to send now; fetches one (blocking) when there is none or it is about to expire.
    func current(now: Int64, client: HTTPClient) throws(Failure) -> String {
        if let token, now < refreshAt { return token }
        if let (failure, until) = failure, now < until { throw failure }
        return try fetch(now: now, client: client)
    }

    /// After FCM answered 401/403 to a request carrying `rejected`: a fresh token, or the
    /// failure that prevents one.
    func afterRejection(of rejected: String, now: Int64, client: HTTPClient) throws(Failure) -> String {
        if let token, token != rejected { return token }
        token = nil
        return try current(now: now, client: client)
    }

    private func fetch(now: Int64, client: HTTPClient) throws(Failure) -> String {
        let assertion: String
        do {
            assertion = try configuration.serviceAccount.assertion(audience: configuration.tokenURL, issuedAt: now)
        } catch {
            throw remember(.refused(status: 0, reason: "\(error)"), until: Int64.max, now: now)
        }
        var body = Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=".utf8)
        body += assertion.utf8
        defer { wipe(&body) }
        let request = HTTPRequest(
            url: configuration.tokenURL, headers: ["content-type: application/x-www-form-urlencoded"], body: body)
        let response: HTTPResponse
        switch client.perform(request) {
        case let .success(answer): response = answer
        case var .failure(transport):
            transport.message = "token endpoint: " + transport.message
            if ResponseClassifier.transport(transport) == .configuration {
                throw remember(.refused(status: 0, reason: ResponseClassifier.transportReason(transport)), until: Int64.max, now: now)
            }
            throw remember(.transport(transport), until: now + 1, now: now)
        }
        let object: JSONObject? = (try? JSONParser.parse(response.body, maximumDepth: 8))?.objectValue
        guard response.status == 200 else {
            let reason = object?["error"]?.stringValue ?? "HTTP \(response.status)"
            if response.status == 429 || response.status >= 500 {
                throw remember(.unavailable(status: response.status, reason: "token endpoint: \(reason)"), until: now + 1, now: now)
            }
            throw remember(.refused(status: response.status, reason: "token endpoint: \(reason)"), until: Int64.max, now: now)
        }
        guard let object, let fetched = object["access_token"]?.stringValue, !fetched.isEmpty,
            fetched.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw remember(.unavailable(status: 200, reason: "token endpoint: no access_token in the answer"), until: now + 1, now: now)
        }
        let lifetime = max(object["expires_in"]?.integerValue ?? 3600, 1)
        token = fetched
        refreshAt = now + lifetime - min(refreshMargin, lifetime / 2)
        failure = nil
        return fetched
    }

    private func remember(_ failure: Failure, until: Int64, now: Int64) -> Failure {
        self.failure = (failure, until)
        return failure
    }
}

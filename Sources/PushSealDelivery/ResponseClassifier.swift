internal import PushSealCore
import PushSealJSON

/// How a push service's answer is read: the outcome it implies, before retries and token
/// refreshes are applied.
enum ResponseClass: Equatable {
    case delivered(identifier: String?)
    /// 429 or 5xx: may succeed later.
    case retry
    /// APNs 410, FCM `UNREGISTERED`; APNs's `timestamp` (milliseconds since 1970) when given.
    case tokenDead(timestamp: Int64?)
    /// APNs `BadDeviceToken` / `DeviceTokenNotForTopic`: the token, the environment or the topic.
    case tokenInvalid
    case rejected
    /// 403 (APNs, FCM) or 401 (FCM): refresh the token once, then ``configuration``.
    case authentication
    /// The URL, the project, the topic or the credentials are wrong: every notification to this
    /// service would get the same answer.
    case configuration
}

enum ResponseClassifier {
    /// What `token_invalid` tells the caller to check.
    static let tokenInvalidAdvice = "check the APNs environment (sandbox or production) and the topic; remove the token only when both are right"

    /// APNs (Apple's "Handling notification responses from APNs"): 200 delivered; 410 token dead
    /// (with the body's `timestamp`); 400 `BadDeviceToken`/`DeviceTokenNotForTopic` token
    /// invalid; 400 topic errors, 404 and 405 configuration; 403 authentication; 429 and 5xx
    /// retry; other 4xx rejected. The reason is the body's `reason` (with advice where the
    /// outcome needs it).
    static func apns(_ response: HTTPResponse) -> (ResponseClass, reason: String?) {
        let object = (try? JSONParser.parse(response.body, maximumDepth: 4))?.objectValue
        let reason = object?["reason"]?.stringValue
        switch response.status {
        case 200: return (.delivered(identifier: response.apnsID), nil)
        case 410: return (.tokenDead(timestamp: object?["timestamp"]?.integerValue), reason ?? "Unregistered")
        case 400 where reason == "BadDeviceToken" || reason == "DeviceTokenNotForTopic":
            return (.tokenInvalid, "\(reason!): \(tokenInvalidAdvice)")
        case 400 where reason == "MissingTopic" || reason == "BadTopic" || reason == "TopicDisallowed":
            return (.configuration, "\(reason!): check the apns-topic (the app's bundle id) and that the key may send to it")
        case 404, 405:
            return (.configuration, "\(reason ?? "HTTP \(response.status)"): APNs has no such path; check the APNs base URL")
        case 403: return (.authentication, reason ?? "HTTP 403")
        case 429, 500...599: return (.retry, reason)
        default: return (.rejected, reason ?? "HTTP \(response.status)")
        }
    }

    /// FCM HTTP v1: 200 delivered (`name`); `UNREGISTERED` token dead; any other 404 (a wrong
    /// URL or project), `SENDER_ID_MISMATCH` and `THIRD_PARTY_AUTH_ERROR` configuration; 401 and
    /// 403 authentication; 429 and 5xx retry; other statuses rejected. The reason is the
    /// FcmError `errorCode` when present, else `error.status` (with advice for configuration).
    static func fcm(_ response: HTTPResponse) -> (ResponseClass, reason: String?) {
        let object = (try? JSONParser.parse(response.body, maximumDepth: 8))?.objectValue
        if response.status == 200 { return (.delivered(identifier: object?["name"]?.stringValue), nil) }
        let error = object?["error"]?.objectValue
        let status = error?["status"]?.stringValue
        var errorCode: String?
        if case let .array(details)? = error?["details"] {
            errorCode = details.lazy.compactMap { $0.objectValue?["errorCode"]?.stringValue }.first
        }
        let reason = errorCode ?? status ?? "HTTP \(response.status)"
        switch (response.status, errorCode) {
        case (_, "UNREGISTERED"): return (.tokenDead(timestamp: nil), reason)
        case (404, _):
            return (.configuration, "\(reason): no such FCM project or send URL; check the send URL and the service account's project_id")
        case (_, "SENDER_ID_MISMATCH"):
            return (.configuration, "\(reason): the token is not from this Firebase project; check the service account and the send URL's project")
        case (_, "THIRD_PARTY_AUTH_ERROR"):
            return (.configuration, "\(reason): APNs refused the key or certificate configured in the Firebase project (Cloud Messaging settings)")
        case (401, _), (403, _): return (.authentication, reason)
        case (429, _), (500...599, _): return (.retry, reason)
        default: return (.rejected, reason)
        }
    }

    /// How a transfer that got no answer is treated.
    enum TransportClass: Equatable {
        /// The certificate, the host name or the URL: no retry helps.
        case configuration
        /// The connection was refused or reset: retried for a bounded time, then configuration.
        case connection
        /// A stream reset, a GOAWAY, a timeout: retried like a 5xx.
        case retry
    }

    /// libcurl's codes (curl.h): 1 unsupported protocol, 3 malformed URL, 6 host not resolved,
    /// 58/60/77/83/90/91 certificates and host-name verification; 7 cannot connect, 35 TLS
    /// handshake failed (a reset during it included), 55/56 send/receive failed; the rest retry.
    static func transport(_ failure: TransportFailure) -> TransportClass {
        switch failure.code {
        case 1, 3, 6, 58, 60, 77, 83, 90, 91: .configuration
        case 7, 35, 55, 56: .connection
        default: .retry
        }
    }

    /// The reason for a transport failure classified as configuration.
    static func transportReason(_ failure: TransportFailure) -> String {
        switch failure.code {
        case 58, 60, 77, 83, 90, 91:
            "\(failure.message): the server's certificate is not trusted or not for this host; check the URL's host, or give the CA file of a test server or relay"
        case 6: "\(failure.message): check the URL's host name"
        default: "\(failure.message): check the URL"
        }
    }
}

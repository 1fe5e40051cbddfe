internal import PushSealCore
import PushSealJSON

/// How a push service's answer is read: the outcome it implies, before retries and token
/// refreshes are applied.
enum ResponseClass: Equatable {
    case delivered(identifier: String?)
    /// 429 or 5xx: may succeed later.
    case retry
    case tokenDead
    case rejected
    /// 403 (APNs, FCM) or 401 (FCM): refresh the token once.
    case authentication
}

enum ResponseClassifier {
    /// APNs (Apple's "Handling notification responses from APNs"): 200 delivered; 410, and 400
    /// `BadDeviceToken`, token dead; 403 authentication; 429 and 5xx retry; other 4xx rejected.
    /// The reason is the body's `reason`.
    static func apns(_ response: HTTPResponse) -> (ResponseClass, reason: String?) {
        let reason = (try? JSONParser.parse(response.body, maximumDepth: 4))?.objectValue?["reason"]?.stringValue
        switch response.status {
        case 200: return (.delivered(identifier: response.apnsID), nil)
        case 410: return (.tokenDead, reason ?? "Unregistered")
        case 400 where reason == "BadDeviceToken": return (.tokenDead, reason)
        case 403: return (.authentication, reason)
        case 429, 500...599: return (.retry, reason)
        default: return (.rejected, reason ?? "HTTP \(response.status)")
        }
    }

    /// FCM HTTP v1: 200 delivered (`name`); `UNREGISTERED` or `NOT_FOUND` token dead; 401 and
    /// 403 authentication; 429 and 5xx retry; other statuses rejected. The reason is the FcmError
    /// `errorCode` when present, else `error.status`.
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
        if errorCode == "UNREGISTERED" || status == "NOT_FOUND" || errorCode == "NOT_FOUND" { return (.tokenDead, reason) }
        switch response.status {
        case 401, 403: return (.authentication, reason)
        case 429, 500...599: return (.retry, reason)
        default: return (.rejected, reason)
        }
    }
}

public import PushSealProvider

/// Why a sender could not be set up or a notification could not be handed to it. Never carries
/// key material, service-account contents or authentication tokens.
public enum DeliveryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The APNs signing key is not a PEM PKCS#8 EC P-256 private key (a team's `.p8` file).
    case invalidAPNsKey(String)
    /// The APNs key id or team id is empty or not visible ASCII.
    case invalidAPNsIdentity(field: String, detail: String)
    /// The FCM service-account JSON is malformed or a member is missing or wrong.
    case invalidServiceAccount(field: String, detail: String)
    /// A base, send or token URL is not an `https://` URL.
    case invalidURL(field: String, detail: String)
    /// An APNs device token is not 16 to 400 hexadecimal digits.
    case invalidDeviceToken(String)
    /// A notification for a transport the sender was not configured for.
    case transportNotConfigured(String)
    /// A sender option is out of range.
    case invalidOption(field: String, detail: String)
    /// The content could not be sealed (``PushNotification/init(tag:sealing:conversationKey:device:sealer:apns:deviceToken:cache:)``).
    case sealing(ProviderError)
    /// libcurl or libcrypto failed in a way no input explains (e.g. no HTTP/2 support).
    case library(String)

    /// A stable snake_case code (the CLI's JSON-lines error objects).
    public var code: String {
        switch self {
        case .invalidAPNsKey: "invalid_apns_key"
        case .invalidAPNsIdentity: "invalid_apns_identity"
        case .invalidServiceAccount: "invalid_service_account"
        case .invalidURL: "invalid_url"
        case .invalidDeviceToken: "invalid_device_token"
        case .transportNotConfigured: "transport_not_configured"
        case .invalidOption: "invalid_option"
        case let .sealing(error): error.code
        case .library: "library_error"
        }
    }

    /// A one-line message.
    public var description: String {
        switch self {
        case let .invalidAPNsKey(detail): "invalid APNs signing key: \(detail)"
        case let .invalidAPNsIdentity(field, detail): "invalid APNs \(field): \(detail)"
        case let .invalidServiceAccount(field, detail): "invalid FCM service account: \(field) \(detail)"
        case let .invalidURL(field, detail): "invalid \(field): \(detail)"
        case let .invalidDeviceToken(detail): "invalid APNs device token: \(detail)"
        case let .transportNotConfigured(transport): "no \(transport) credentials were configured"
        case let .invalidOption(field, detail): "invalid option \(field): \(detail)"
        case let .sealing(error): "\(error)"
        case let .library(detail): detail
        }
    }
}

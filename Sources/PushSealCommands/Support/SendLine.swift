import PushSealCore
import PushSealKeyDirectory
import PushSealProvider
import PushSealJSON

/// One input line of `pushseal send`: a device token, a transport, and either a content to seal
/// or an already sealed payload.
struct SendLine {
    /// Why a line cannot be sent: a stable code and a message (the line's `invalid` result).
    struct Failure: Error {
        var code: String
        var message: String
        init(_ code: String, _ message: String) {
            self.code = code
            self.message = message
        }
        init(_ error: ProviderError) {
            self.init(error.code, error.description)
        }
    }

    enum Body {
        case content(NotificationContent)
        /// The payload object, re-encoded compactly (member order and number literals kept, so a
        /// compact payload from `pushseal seal` comes out byte for byte).
        case payload([UInt8])
    }

    var token: String?
    var transport: Transport
    var body: Body
    var key: ConversationKey?
    var collapseID: String?
    /// A `payload` line's APNs request headers, checked.
    var headers: [HTTPHeader] = []
    /// A `content` line's per-message headers, applied before sealing.
    var messageHeaders = MessageHeaders()

    init(parsing bytes: [UInt8], options: SendCommand.Options) throws(Failure) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maximumDepth: NotificationContent.maximumNestingDepth + 4)
        } catch {
            throw Failure("invalid_json", "not JSON: \(error)")
        }
        guard case let .object(object) = value else { throw Failure("invalid_line", "a line is a JSON object") }
        func string(_ name: String) throws(Failure) -> String? {
            guard let member = object[name] else { return nil }
            guard case let .string(text) = member else { throw Failure("invalid_line", "\"\(name)\" must be a string") }
            return text
        }
        token = try string("token")
        if let named = try string("transport") {
            guard let named = Transport(rawValue: named) else {
                throw Failure("invalid_line", "\"transport\" must be apns, fcm or fcm-apns")
            }
            transport = named
        } else {
            transport = options.transport
        }
        collapseID = try string("collapse_id")
        if let text = try string("key") {
            do {
                key = try ConversationKey(rawBytes: Base64URL.decode(text))
            } catch {
                throw Failure("invalid_line", "\"key\" must be 32 bytes of base64url without padding")
            }
        }
        switch (object["content"], object["payload"]) {
        case let (.object(content)?, nil):
            do {
                body = .content(try NotificationContent(object: content))
            } catch {
                throw Failure(.invalidContent(error))
            }
        case let (nil, .object(payload)?):
            var writer = JSONWriter(capacity: 4200)
            writer.append(.object(payload))
            body = .payload(writer.bytes)
        default:
            throw Failure("invalid_line", "a line has either a \"content\" object or a sealed \"payload\" object")
        }
        for member in object.members {
            switch member.name {
            case "token", "transport", "collapse_id", "key", "content", "payload": continue
            case "headers":
                guard case let .object(headerObject) = member.value else {
                    throw Failure("invalid_line", "\"headers\" must be an object of header names and values")
                }
                guard case .payload = body else {
                    do throws(ProviderError) {
                        messageHeaders = try MessageHeaders(object: headerObject)
                    } catch {
                        throw Failure(error)
                    }
                    continue
                }
                guard transport == .apns else {
                    throw Failure("invalid_line", "an FCM \"payload\" carries its headers inside (message.android, message.apns.headers)")
                }
                for header in headerObject.members {
                    guard case let .string(text) = header.value, Self.isHeaderText(header.name), Self.isHeaderText(text) else {
                        throw Failure("invalid_line", "header \"\(header.name)\" must be a visible-ASCII string without spaces")
                    }
                    let name = header.name.lowercased()
                    do throws(ProviderError) {
                        try MessageHeaders.validateAPNsHeader(name: name, value: text)
                    } catch {
                        throw Failure(error)
                    }
                    headers.append(HTTPHeader(name: name, value: text))
                }
            default:
                throw Failure("invalid_line", "unknown member \"\(member.name)\" (expected token, transport, content or payload, key, collapse_id, headers)")
            }
        }
    }

    private static func isHeaderText(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// This line sealed for the delivery backend.
    func sealed(line: Int, sealer: NotificationSealer, keyProvider: (any CurrentKeyProvider)?, options: SendCommand.Options) throws(Failure) -> SealedSend {
        if transport == .apns {
            guard let token else { throw Failure("invalid_line", "an APNs line needs the device \"token\"") }
            guard !token.isEmpty, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw Failure("invalid_device_token", "the device token must be visible ASCII (hexadecimal digits)")
            }
            let body: [UInt8]
            var headers = self.headers
            switch self.body {
            case let .content(content):
                let request: APNsRequest
                do {
                    request = try KeyChoice(key: key, provider: keyProvider).seal(
                        content, sealer: sealer, options: messageHeaders.applied(to: apnsOptions(options)))
                    headers = try request.headers()
                } catch {
                    throw Failure(error)
                }
                body = request.body
            case let .payload(payload):
                body = payload
                if !headers.contains(where: { $0.name == "apns-push-type" }) { headers.insert(HTTPHeader(name: "apns-push-type", value: "alert"), at: 0) }
                if !headers.contains(where: { $0.name == "apns-topic" }) {
                    guard let topic = options.apnsTopic else {
                        throw Failure("missing_topic", "no apns-topic: give --apns-topic or a \"headers\" member with one")
                    }
                    headers.append(HTTPHeader(name: "apns-topic", value: topic))
                }
            }
            return .apns(line: line, token: token, headers: headers, body: body)
        }
        let body: [UInt8]
        switch self.body {
        case let .content(content):
            guard let token else { throw Failure("invalid_line", "an FCM line with a content needs the registration \"token\"") }
            do {
                let fcm = try messageHeaders.applied(to: FCMOptions(token: token, apns: transport == .fcmAPNs ? apnsOptions(options) : nil))
                body = try KeyChoice(key: key, provider: keyProvider).seal(content, sealer: sealer, options: fcm).body
            } catch {
                throw Failure(error)
            }
        case let .payload(payload):
            guard payload.starts(with: Array(#"{"message":{"#.utf8)) else {
                throw Failure("invalid_line", "an FCM \"payload\" is the v1 request body {\"message\":{…}}")
            }
            body = payload
        }
        return .fcm(line: line, transport: transport, body: body)
    }

    private func apnsOptions(_ options: SendCommand.Options) -> APNsOptions {
        APNsOptions(
            placeholder: .text(title: options.placeholderTitle, body: options.placeholderBody), topic: options.apnsTopic,
            collapseID: collapseID)
    }
}

/// The line's own key, else the command's key source (the conversation's current key).
private struct KeyChoice {
    var key: ConversationKey?
    var provider: (any CurrentKeyProvider)?

    func seal<Options: TransportOptions>(_ content: NotificationContent, sealer: NotificationSealer, options: Options) throws(ProviderError) -> Options.SealedRequest {
        if let key { return try sealer.seal(content, with: key, options: options) }
        guard let provider else { throw Self.missing(content) }
        return try sealer.seal(content, keyProvider: provider, options: options)
    }

    private static func missing(_ content: NotificationContent) -> ProviderError {
        .keyUnavailable(conversation: content.conversationID, detail: "no key: give --key, --key-file or --store, or a \"key\" in the line")
    }
}

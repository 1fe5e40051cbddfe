internal import PushSealCore
import PushSealJSON

/// Compact JSON Web Tokens (RFC 7519) signed with a ``SigningKey``.
enum JSONWebToken {
    /// `base64url(header).base64url(claims).base64url(signature)`; `header` and `claims` are
    /// the exact JSON bytes.
    static func make(header: [UInt8], claims: [UInt8], key: SigningKey) throws(DeliveryError) -> String {
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        let signature = try key.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// A compact JSON object of string and integer members, in the given order.
    static func object(_ members: [(String, Member)]) -> [UInt8] {
        var writer = JSONWriter(capacity: 128)
        writer.appendRaw("{")
        for (index, (name, value)) in members.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            writer.appendString(name)
            writer.appendRaw(":")
            switch value {
            case let .string(text): writer.appendString(text)
            case let .integer(number): writer.appendInteger(number)
            }
        }
        writer.appendRaw("}")
        return writer.bytes
    }

    /// A claim or header value.
    enum Member {
        case string(String)
        case integer(Int64)
    }
}

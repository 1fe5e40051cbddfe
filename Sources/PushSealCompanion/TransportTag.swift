import PushSealCommands

/// The transport packed into the low bits of a notification's tag next to its line number, so
/// no table of lines in flight is needed; named as the result lines name it.
extension Transport {
    /// The name in a result line (`apns`, `fcm`, `fcm-apns`).
    var name: String { rawValue }

    /// The tag of line `line` sent over `transport`.
    static func tag(line: Int, _ transport: Transport) -> Int {
        let bits = switch transport {
        case .apns: 0
        case .fcm: 1
        case .fcmAPNs: 2
        }
        return line << 2 | bits
    }

    /// The line and transport of a tag made by ``tag(line:_:)``.
    static func split(_ tag: Int) -> (line: Int, transport: Transport) {
        let transport: Transport = switch tag & 3 {
        case 1: .fcm
        case 2: .fcmAPNs
        default: .apns
        }
        return (tag >> 2, transport)
    }
}

import PushSealPlatform
import PushSealDelivery
import PushSealCore
import PushSealProvider
import PushSealJSON

/// One request from `pushseal send`, as framed on this helper's standard input:
///
///     <line> apns <device token> <body length> [<header>:<value> …]\n<body>
///     <line> fcm <body length> <transport name>\n<body>
///     <line> invalid <code> <message length>\n<message>
///
/// The first line of the input (before any frame) is the configuration.
enum Frame {
    case notification(PushNotification, transport: Transport)
    case invalid(line: Int, error: [UInt8])
    /// A frame this helper cannot read (a version mismatch between the two executables).
    case malformed(String)
}

/// The transports, as the report names them; packed into the low bits of a notification's tag
/// next to its line number, so no table of lines in flight is needed.
enum Transport: Int, CaseIterable {
    case apns = 0
    case fcm = 1
    case fcmAPNs = 2

    var name: String {
        switch self {
        case .apns: "apns"
        case .fcm: "fcm"
        case .fcmAPNs: "fcm-apns"
        }
    }

    static func tag(line: Int, _ transport: Transport) -> Int { line << 2 | transport.rawValue }
    static func split(_ tag: Int) -> (line: Int, transport: Transport) { (tag >> 2, Transport(rawValue: tag & 3) ?? .apns) }
}

/// Reads frames from a descriptor without blocking once the configuration is read: the sender
/// keeps its transfers moving while `pushseal send` is still sealing.
struct FrameReader {
    /// The longest frame header accepted.
    static let maximumHeaderByteCount = 16 * 1024
    let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private(set) var atEnd = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Reads the configuration line (blocking); nil at end of input.
    mutating func configurationLine() -> [UInt8]? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 10) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                return line
            }
            guard fill() > 0 else { return nil }
        }
    }

    /// Switches the descriptor to non-blocking reads.
    func makeNonBlocking() {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    /// The next frame, `.waiting` when it has not fully arrived, or `.finished`.
    mutating func next() -> NextFrame {
        while true {
            if let frame = parse() { return .frame(frame) }
            if atEnd { return .finished }
            let count = fill()
            if count < 0 { return .waiting }
        }
    }

    enum NextFrame {
        case frame(Frame)
        case waiting
        case finished
    }

    /// Reads more input: the byte count, 0 at end, -1 when nothing is there yet.
    private mutating func fill() -> Int {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        let oldCount = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: 65_536))
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + oldCount, 65_536) }
        buffer.removeSubrange((oldCount + max(count, 0))...)
        if count == 0 { atEnd = true }
        if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? -1 : { atEnd = true; return 0 }() }
        return count
    }

    /// A complete frame from the buffer, or nil.
    private mutating func parse() -> Frame? {
        guard let newline = buffer[start...].firstIndex(of: 10) else {
            if buffer.count - start > Self.maximumHeaderByteCount {
                atEnd = true
                start = buffer.count
                return .malformed("frame header too long")
            }
            if atEnd && start < buffer.count {
                start = buffer.count
                return .malformed("input ends inside a frame")
            }
            return nil
        }
        let fields = buffer[start..<newline].split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
        guard fields.count >= 3, let line = Int(fields[0]) else {
            start = newline + 1
            return .malformed("unreadable frame header")
        }
        let lengthField = fields[1] == "fcm" ? 2 : 3
        guard fields.count > lengthField, let length = Int(fields[lengthField]), length >= 0 else {
            start = newline + 1
            return .malformed("unreadable frame header")
        }
        guard buffer.count - (newline + 1) >= length else {
            if atEnd {
                start = buffer.count
                return .malformed("input ends inside a frame")
            }
            return nil
        }
        let body = Array(buffer[(newline + 1)..<(newline + 1 + length)])
        start = newline + 1 + length
        switch fields[1] {
        case "apns":
            let headers = fields.dropFirst(4).map { field -> HTTPHeader in
                let colon = field.firstIndex(of: ":") ?? field.endIndex
                return HTTPHeader(name: String(field[..<colon]), value: colon < field.endIndex ? String(field[field.index(after: colon)...]) : "")
            }
            do {
                let notification = try PushNotification(
                    tag: Transport.tag(line: line, .apns), apnsBody: body, deviceToken: fields[2], headers: headers)
                return .notification(notification, transport: .apns)
            } catch {
                return .invalid(line: line, error: Self.errorObject(code: error.code, message: "\(error)"))
            }
        case "fcm":
            let transport: Transport = fields.count > 3 && fields[3] == "fcm-apns" ? .fcmAPNs : .fcm
            return .notification(PushNotification(tag: Transport.tag(line: line, transport), fcmBody: body), transport: transport)
        case "invalid":
            return .invalid(line: line, error: Self.errorObject(code: fields[2], message: String(decoding: body, as: UTF8.self)))
        default:
            return .malformed("unknown frame kind '\(fields[1])'")
        }
    }

    static func errorObject(code: String, message: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 64 + message.utf8.count)
        writer.appendRaw("{\"code\":")
        writer.appendString(code)
        writer.appendRaw(",\"message\":")
        writer.appendString(message)
        writer.appendRaw("}")
        return writer.bytes
    }
}

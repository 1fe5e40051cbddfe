import PushSealKeyDirectory
internal import PushSealPlatform
internal import CLibPQ

/// One libpq connection (not thread-safe: one user at a time). Every statement is parameterized
/// (`PQexecParams`), parameters and results in binary form, so no value is ever spliced into SQL.
final class PostgreSQLConnection {
    /// A statement parameter.
    enum Value {
        case int64(Int64)
        case bytes([UInt8])
        case text(String)
        case nullInt64
        case nullText

        var type: Oid {
            switch self {
            case .int64, .nullInt64: 20  // int8
            case .bytes: 17  // bytea
            case .text, .nullText: 25  // text
            }
        }

        var encoded: [UInt8]? {
            switch self {
            case let .int64(value): withUnsafeBytes(of: value.bigEndian) { Array($0) }
            case let .bytes(bytes): bytes
            case let .text(text): Array(text.utf8)
            case .nullInt64, .nullText: nil
            }
        }
    }

    /// The rows of a statement's result, read in binary form.
    struct Rows {
        fileprivate var rows: [[[UInt8]?]]

        var count: Int { rows.count }

        func bytes(_ row: Int, _ column: Int) -> [UInt8]? { rows[row][column] }

        func int64(_ row: Int, _ column: Int) -> Int64? {
            guard let bytes = rows[row][column], bytes.count == 8 else { return nil }
            return bytes.reduce(0) { ($0 << 8) | Int64($1) }
        }

        func int32(_ row: Int, _ column: Int) -> Int64? {
            guard let bytes = rows[row][column], bytes.count == 4 else { return nil }
            return Int64(Int32(bitPattern: bytes.reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }))
        }
    }

    private let handle: OpaquePointer
    private let uri: ConnectionURI

    /// Connects (libpq's `connect_timeout` defaults to `connectTimeoutSeconds` unless the URI
    /// sets it). `KeyDirectoryError.serverUnavailable(_:)` with libpq's reason, password redacted.
    init(_ uri: ConnectionURI, connectTimeoutSeconds: Int) throws(KeyDirectoryError) {
        self.uri = uri
        // connect_timeout first: the URI (expanded from dbname) overrides it when it sets one.
        let keywords = ["connect_timeout", "fallback_application_name", "client_encoding", "dbname"]
        let values = [String(connectTimeoutSeconds), "pushseal", "UTF8", uri.text]
        let connection: OpaquePointer? = withCStrings(keywords) { keys in
            withCStrings(values) { vals in PQconnectdbParams(keys, vals, 1) }
        }
        guard let connection else { throw .serverUnavailable("out of memory creating a connection") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = uri.redact(Self.trimmed(PQerrorMessage(connection)))
            PQfinish(connection)
            throw .serverUnavailable("cannot connect to \(uri): \(message)")
        }
        // libpq's default notice processor writes the server's notices to the app's stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
    }

    deinit { PQfinish(handle) }

    /// Whether the connection is still usable (false after the server closed it).
    var isOpen: Bool { PQstatus(handle) == CONNECTION_OK }

    /// The socket, for waiting on notifications.
    var socket: Int32 { PQsocket(handle) }

    /// Runs `sql` with `parameters` (`$1`, `$2`, …) and returns its rows (none for a command).
    @discardableResult
    func execute(_ sql: String, _ parameters: [Value] = []) throws(KeyDirectoryError) -> Rows {
        let types = parameters.map(\.type)
        let encoded = parameters.map(\.encoded)
        let lengths = encoded.map { Int32($0?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: parameters.count)
        // Copies of the parameter bytes that live across the call (libpq reads, never keeps them).
        let buffers: [UnsafeMutablePointer<CChar>?] = encoded.map { bytes in
            guard let bytes else { return nil }
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
            bytes.withUnsafeBytes { raw in
                if let base = raw.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: raw.count) }
            }
            return buffer
        }
        defer { for buffer in buffers { buffer?.deallocate() } }
        let values = buffers.map { UnsafePointer($0) }
        let result = PQexecParams(handle, sql, Int32(parameters.count), types, values, lengths, formats, 1)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw failure(result)
        }
        var rows: [[[UInt8]?]] = []
        let rowCount = PQntuples(result), columnCount = PQnfields(result)
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var columns: [[UInt8]?] = []
            for column in 0..<columnCount {
                if PQgetisnull(result, row, column) == 1 {
                    columns.append(nil)
                } else {
                    let length = Int(PQgetlength(result, row, column))
                    let pointer = PQgetvalue(result, row, column)!
                    columns.append(Array(UnsafeRawBufferPointer(start: pointer, count: length)))
                }
            }
            rows.append(columns)
        }
        return Rows(rows: rows)
    }

    /// The error of a failed statement: lost connection, or the server's SQLSTATE and message.
    private func failure(_ result: OpaquePointer?) -> KeyDirectoryError {
        if !isOpen {
            return .serverUnavailable("the connection to \(uri) was lost: \(uri.redact(Self.trimmed(PQerrorMessage(handle))))")
        }
        guard let result, let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))) else {
            return .serverUnavailable("the connection to \(uri) failed: \(uri.redact(Self.trimmed(PQerrorMessage(handle))))")
        }
        let message = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) } ?? ""
        return .server(sqlState: String(cString: state), message: uri.redact(message))
    }

    /// Reads what the server sent and returns the pending notifications' (channel, payload);
    /// `KeyDirectoryError.serverUnavailable(_:)` when the connection is gone.
    func notifications() throws(KeyDirectoryError) -> [(channel: String, payload: String)] {
        guard PQconsumeInput(handle) == 1, isOpen else {
            throw .serverUnavailable("the connection to \(uri) was lost: \(uri.redact(Self.trimmed(PQerrorMessage(handle))))")
        }
        var found: [(channel: String, payload: String)] = []
        while let notify = PQnotifies(handle) {
            found.append((String(cString: notify.pointee.relname), String(cString: notify.pointee.extra)))
            PQfreemem(notify)
        }
        return found
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "unknown error" }
        var text = Substring(String(cString: message))
        while let last = text.last, last == "\n" || last == " " { text = text.dropLast() }
        // libpq's connection errors may span lines ("connection to server … failed: …\n\t…").
        return text.split(whereSeparator: { $0 == "\n" || $0 == "\t" }).joined(separator: " ")
    }
}

/// Calls `body` with a NULL-terminated array of C strings for `strings`.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    let pointers = copies.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}

internal import CCurl

/// One HTTP/2 POST.
struct HTTPRequest {
    /// The full URL.
    var url: String
    /// Header lines, `name: value`.
    var headers: [String]
    /// The request body.
    var body: [UInt8]
}

/// A response: the status, the headers a push service answers with, and the body (at most
/// ``HTTPClient/maximumResponseBodyByteCount`` bytes are kept).
struct HTTPResponse {
    var status: Int
    /// `apns-id`.
    var apnsID: String?
    /// `retry-after`, in seconds (the delta-seconds form; an HTTP date is ignored).
    var retryAfter: Int?
    var body: [UInt8]
}

/// A transfer that ended without a response: libcurl's code and message (which names the host
/// and port, never a header or body).
struct TransportFailure: Error {
    var code: Int32
    var message: String
}

/// HTTP/2 over TLS through libcurl's multi interface: every request to a host shares one
/// connection, each on its own stream (`CURLPIPE_MULTIPLEX`, one connection per host,
/// `CURLOPT_PIPEWAIT`). A connection that ends (GOAWAY, reset, network) is replaced by libcurl
/// for the transfers that follow; the transfers it failed are reported as ``TransportFailure``s
/// for the caller to retry. Single-threaded: one thread drives it.
final class HTTPClient {
    /// Response bytes kept per request; push services answer with a few hundred.
    static let maximumResponseBodyByteCount = 16 * 1024

    struct Options {
        var caFile: String?
        var requestTimeoutMilliseconds: Int
        var connectTimeoutMilliseconds: Int
        var maximumStreams: Int
    }

    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    private let multi: UnsafeMutableRawPointer
    private let options: Options
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    private var idle: [Transfer] = []

    /// The number of requests started and not yet completed.
    var activeCount: Int { active.count }

    init(options: Options) throws(DeliveryError) {
        guard Self.globalInit else { throw .library("libcurl: global initialization failed") }
        guard let info = pushseal_curl_version_info(), info.pointee.features & CURL_VERSION_HTTP2 != 0 else {
            throw .library("libcurl was built without HTTP/2 (nghttp2); APNs requires HTTP/2")
        }
        guard let multi = curl_multi_init() else { throw .library("libcurl: cannot create a multi handle") }
        self.multi = multi
        self.options = options
        _ = pushseal_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        _ = pushseal_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1)
        _ = pushseal_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1, options.maximumStreams))
    }

    deinit {
        for transfer in active.values {
            curl_multi_remove_handle(multi, transfer.handle)
            transfer.release()
        }
        for transfer in idle { transfer.release() }
        curl_multi_cleanup(multi)
    }

    /// Starts `request`; its completion is reported by ``run(waitMilliseconds:completed:)`` with `tag`.
    func start(_ request: HTTPRequest, tag: Int) {
        let transfer = idle.popLast() ?? Transfer()
        transfer.prepare(request, tag: tag, options: options, multiplexed: true)
        active[transfer.handle] = transfer
        curl_multi_add_handle(multi, transfer.handle)
    }

    /// Moves every transfer forward, waits up to `waitMilliseconds` for activity (less when
    /// libcurl has a timer due, or when `descriptor` becomes readable), and reports the
    /// transfers that ended.
    func run(waitMilliseconds: Int, wakeOn descriptor: Int32? = nil, completed: (Int, Result<HTTPResponse, TransportFailure>) -> Void) {
        var running: Int32 = 0
        curl_multi_perform(multi, &running)
        if !reportFinished(completed) {
            let timeout = Int32(clamping: max(0, waitMilliseconds))
            if let descriptor {
                var extra = curl_waitfd(fd: descriptor, events: Int16(CURL_WAIT_POLLIN), revents: 0)
                curl_multi_poll(multi, &extra, 1, timeout, nil)
            } else {
                curl_multi_poll(multi, nil, 0, timeout, nil)
            }
            curl_multi_perform(multi, &running)
            _ = reportFinished(completed)
        }
    }

    /// Reports finished transfers; true when there was at least one.
    private func reportFinished(_ completed: (Int, Result<HTTPResponse, TransportFailure>) -> Void) -> Bool {
        var any = false
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                let transfer = active.removeValue(forKey: handle)
            else { continue }
            let code = pushseal_curl_message_result(message)
            curl_multi_remove_handle(multi, handle)
            let result = transfer.result(code: code)
            let tag = transfer.tag
            transfer.finish()
            idle.append(transfer)
            any = true
            completed(tag, result)
        }
        return any
    }

    /// Performs one request on its own connection and waits for it (OAuth2 token requests).
    func perform(_ request: HTTPRequest) -> Result<HTTPResponse, TransportFailure> {
        let transfer = Transfer()
        defer { transfer.release() }
        transfer.prepare(request, tag: 0, options: options, multiplexed: false)
        let code = curl_easy_perform(transfer.handle)
        let result = transfer.result(code: code)
        transfer.finish()
        return result
    }
}

/// One easy handle and what it collects; reused for request after request.
private final class Transfer {
    let handle: UnsafeMutableRawPointer
    let errorBuffer: UnsafeMutablePointer<CChar>
    var tag = 0
    var headerList: UnsafeMutablePointer<curl_slist>?
    var body: [UInt8] = []
    var apnsID: String?
    var retryAfter: Int?

    init() {
        handle = curl_easy_init()!
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
    }

    func release() {
        finish()
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    func prepare(_ request: HTTPRequest, tag: Int, options: HTTPClient.Options, multiplexed: Bool) {
        self.tag = tag
        body.removeAll(keepingCapacity: true)
        apnsID = nil
        retryAfter = nil
        errorBuffer.initialize(to: 0)
        curl_easy_reset(handle)
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = request.url.withCString { pushseal_curl_setopt_pointer(handle, CURLOPT_URL, $0) }
        _ = pushseal_curl_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        _ = pushseal_curl_setopt_long(handle, CURLOPT_PIPEWAIT, multiplexed ? 1 : 0)
        _ = pushseal_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = pushseal_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, options.requestTimeoutMilliseconds)
        _ = pushseal_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, options.connectTimeoutMilliseconds)
        _ = pushseal_curl_setopt_pointer(handle, CURLOPT_PROTOCOLS_STR, "https")
        if let caFile = options.caFile {
            _ = caFile.withCString { pushseal_curl_setopt_pointer(handle, CURLOPT_CAINFO, $0) }
        }
        _ = pushseal_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        for line in request.headers { headerList = curl_slist_append(headerList, line) }
        // No "Expect: 100-continue" wait (HTTP/1.1 only, but keep the request self-contained).
        headerList = curl_slist_append(headerList, "expect:")
        _ = pushseal_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headerList)
        _ = pushseal_curl_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
        _ = request.body.withUnsafeBytes { pushseal_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)) }
        _ = pushseal_curl_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, { data, size, count, user in
            let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            let total = size * count
            let room = HTTPClient.maximumResponseBodyByteCount - transfer.body.count
            if let data, room > 0 {
                transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: min(room, total)))
            }
            return total
        })
        _ = pushseal_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, me)
        _ = pushseal_curl_setopt_write_function(handle, CURLOPT_HEADERFUNCTION, { data, size, count, user in
            let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            let total = size * count
            if let data { transfer.readHeader(UnsafeRawBufferPointer(start: data, count: total)) }
            return total
        })
        _ = pushseal_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, me)
    }

    /// Keeps `apns-id` and `retry-after` from one header line.
    func readHeader(_ line: UnsafeRawBufferPointer) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        guard name == "apns-id" || name == "retry-after" else { return }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x0D || last == 0x0A || last == 0x20 { value = value.dropLast() }
        let text = String(decoding: value, as: UTF8.self)
        if name == "apns-id" { apnsID = text } else { retryAfter = Int(text).flatMap { $0 >= 0 ? $0 : nil } }
    }

    func result(code: CURLcode) -> Result<HTTPResponse, TransportFailure> {
        guard code == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            return .failure(TransportFailure(code: Int32(bitPattern: code.rawValue), message: message))
        }
        var status = 0
        _ = pushseal_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPResponse(status: status, apnsID: apnsID, retryAfter: retryAfter, body: body))
    }

    /// Frees what one request needed (its header list).
    func finish() {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
    }
}

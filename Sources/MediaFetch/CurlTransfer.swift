internal import CCurl
internal import CTweetCache
import Foundation
import HTTPTypes
import Synchronization
import MediaTypes

/// How one attempt ended, as seen on the transfer thread.
struct CurlOutcome: Sendable {
    var failure: FetchFailure?
    var status: Int
    var kind: ContentKind
    var contentType: String?
    var retryAfter: Duration?
    var received: Int
    var effectiveURL: String
    /// Every response header of the final response, as sent (at most 200); recorded
    /// for API calls only.
    var fields: HTTPFields = [:]

    /// The status line and headers, for a caller that reads the answer.
    var head: HTTPResponse { CurlTransfer.response(status, fields) }
}

/// What a transfer is for, which decides what counts as failure.
enum TransferMode {
    /// Media: only a 2xx body of the expected kind is accepted, and refused bodies stop at once.
    case media(ExpectedContent)
    /// An API call: whatever status and body the server sends is the answer. The
    /// request's headers are sent with it; with a body and no method, a POST.
    case api(APIRequest)
}

/// One attempt at one URL: a libcurl easy handle plus the state its callbacks update.
///
/// Confined to the transfer thread from the moment it is queued until `complete` runs;
/// that hand-off is what makes the unchecked `Sendable` sound.
final class CurlTransfer: @unchecked Sendable {
    let url: String
    let hostKey: String
    let easy: UnsafeMutableRawPointer
    private let writeChunk: (UnsafeRawBufferPointer) throws -> Void
    private let expected: ExpectedContent
    private let isAPI: Bool
    private let requestHeaders: HTTPFields
    private let requestBody: [UInt8]?
    private let requestMethod: HTTPRequest.Method?
    private let signing: AWSSignature?
    private let maxBytes: Int
    private let maxRedirects: Int
    private let counter: ByteCounter?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private var headers: UnsafeMutablePointer<curl_slist>?

    private var prefix: [UInt8] = []
    private var kind: ContentKind = .unknown
    private var received = 0
    private var status = 0
    private var contentType: String?
    private var retryAfter: Duration?
    private var abortReason: FetchFailure?
    private var responseFields: HTTPFields = [:]

    /// When the caller stops waiting (``APIRequest/timeout`` from the moment it was
    /// asked for): time spent queued for a connection slot counts against it, so a
    /// request behind others to a store that hangs ends on time, not a queue later.
    var deadline: ContinuousClock.Instant?
    /// The configured limits, which what is left of a deadline may shorten, never lengthen.
    private let connectLimit: Duration
    private let totalLimit: Duration

    /// Before the handle joins the multi handle: what is left of the deadline
    /// becomes libcurl's timeouts where it is shorter; false when nothing is left.
    func startsBeforeDeadline(now: ContinuousClock.Instant) -> Bool {
        guard let deadline else { return true }
        let left = deadline - now
        guard left > .milliseconds(1) else { return false }
        tc_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, min(totalLimit, left).milliseconds)
        tc_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, min(connectLimit, left).milliseconds)
        return true
    }

    /// The HTTP major version of the latest response (0 before any): from 2 on, one
    /// connection carries many transfers, and the loop stops counting this origin's
    /// transfers as connections.
    private(set) var responseVersion = 0

    /// Called on the transfer thread before the first body byte is written, with the
    /// final response's status and headers: a stream's reader learns them at once.
    var onHead: ((HTTPResponse) -> Void)?

    /// Resumes the waiting task; set by the fetcher, called once on the transfer thread.
    var onComplete: (@Sendable (CurlOutcome) -> Void)?

    /// Set by ``CurlMultiLoop/cancel(_:)`` from any thread: a transfer cancelled before
    /// the loop has taken it in completes as cancelled when it arrives, not after running.
    let cancelRequested = Atomic<Bool>(false)

    convenience init(url: String, expected: ExpectedContent, configuration c: FetchConfiguration,
                     writeChunk: @escaping (UnsafeRawBufferPointer) throws -> Void) throws(FetchFailure) {
        try self.init(url: url, mode: .media(expected), configuration: c, writeChunk: writeChunk)
    }

    init(url: String, mode: TransferMode, configuration c: FetchConfiguration,
         writeChunk: @escaping (UnsafeRawBufferPointer) throws -> Void) throws(FetchFailure) {
        switch mode {
        case let .media(expected):
            self.expected = expected
            self.isAPI = false
            self.requestHeaders = [:]
            self.requestBody = nil
            self.requestMethod = nil
            self.signing = nil
        case let .api(request):
            self.requestBody = request.body
            self.requestMethod = request.head.method
            self.signing = request.signing
            // A field's name is a token and its value free of line breaks by its type
            // (swift-http-types): nothing can smuggle a header (or a request) onto the wire.
            self.expected = .any
            self.isAPI = true
            self.requestHeaders = request.headers
        }
        guard let handle = curl_easy_init() else { throw .transport(code: -1, message: "curl_easy_init failed") }
        self.url = url
        self.easy = handle
        self.maxBytes = c.maxBytes
        self.maxRedirects = c.maxRedirects
        self.counter = c.byteCounter
        self.connectLimit = c.connectTimeout
        self.totalLimit = c.totalTimeout
        self.writeChunk = writeChunk
        self.hostKey = Self.originKey(url)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        prefix.reserveCapacity(ContentKind.sniffLength)
        configure(c)
    }

    deinit {
        curl_easy_cleanup(easy)
        if let headers { curl_slist_free_all(headers) }
        errorBuffer.deallocate()
    }

    private func configure(_ c: FetchConfiguration) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        tc_easy_setopt_string(easy, CURLOPT_URL, url)
        tc_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        tc_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        tc_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        tc_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1)
        tc_easy_setopt_long(easy, CURLOPT_MAXREDIRS, c.maxRedirects)
        tc_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, c.connectTimeout.milliseconds)
        tc_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, c.totalTimeout.milliseconds)
        tc_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, c.lowSpeedLimit)
        tc_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, c.lowSpeedTime.milliseconds / 1000))
        tc_easy_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(c.maxBytes))
        tc_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // Over HTTPS, wait for a connection being set up to say whether it multiplexes
        // rather than open another: on HTTP/2 every transfer to a host then shares one
        // connection, one TLS handshake and one load of the CA store (which costs more CPU
        // than the handshake). Plain http:// is HTTP/1.1 here (HTTP/2 only through TLS), so
        // there is nothing to wait for: waiting held every transfer to a new host until the
        // first one's answer, and an HTTP/1.1 origin then got fewer connections than its cap.
        if url.utf8.count >= 6, url.prefix(6).lowercased() == "https:" {
            tc_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
        }
        CurlGlobal.trustOptions(for: c.certificateAuthorities).apply(to: easy)
        tc_easy_setopt_string(easy, CURLOPT_USERAGENT, c.userAgent)
        tc_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        if isAPI {
            if let signing {
                // libcurl signs (SigV4) over the headers as sent; the store checks the body
                // against the x-amz-content-sha256 the caller gives.
                tc_easy_setopt_string(easy, CURLOPT_AWS_SIGV4, signing.provider)
                tc_easy_setopt_string(easy, CURLOPT_USERNAME, signing.accessKeyID)
                tc_easy_setopt_string(easy, CURLOPT_PASSWORD, signing.secretAccessKey)
                tc_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
                if let token = signing.sessionToken {
                    headers = curl_slist_append(headers, "x-amz-security-token: \(HTTPField(name: .amzSecurityToken, value: token).value)")
                }
                // No "Expect:" to suppress 100-continue: libcurl 7.88 signs that empty header
                // but does not send it, and the store answers SignatureDoesNotMatch.
            } else {
                // JSON compresses 5-10x; libcurl decodes it, and the size cap applies to the decoded bytes.
                tc_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
                if requestHeaders[.accept] == nil {
                    headers = curl_slist_append(headers, "Accept: application/json")
                }
            }
            switch requestMethod {
            case .head?: tc_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
            case nil, .get?, .post?: break
            case let other?: tc_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, other.rawValue)
            }
            for field in requestHeaders {
                headers = curl_slist_append(headers, "\(field.name.rawName): \(field.value)")
            }
            if let body = requestBody {
                // A POST: the size first, then libcurl copies the bytes (they need not outlive this call).
                tc_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
                if body.isEmpty {
                    tc_easy_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, "")
                } else {
                    _ = body.withUnsafeBytes { bytes in
                        tc_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                    }
                }
                // libcurl repeats a POST and its body on a 307 or 308, to any host: a body may
                // hold a password, so a redirect is answered, not followed.
                tc_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
            }
        } else {
            headers = curl_slist_append(nil, "Accept: image/*, video/*;q=0.9, */*;q=0.1")
        }
        tc_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headers)
        tc_easy_setopt_data_cb(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback)
        tc_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me)
        tc_easy_setopt_data_cb(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback)
        tc_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me)
    }

    /// A body chunk. Returning anything but `count` makes libcurl abort with CURLE_WRITE_ERROR,
    /// which is how a refused body stops downloading at once.
    fileprivate func receive(_ data: UnsafeRawBufferPointer) -> Int {
        if !isAPI, !(200..<300).contains(status) {
            abortReason = .httpStatus(status)
            return 0
        }
        if received + data.count > maxBytes {
            abortReason = .tooLarge(limit: maxBytes)
            return 0
        }
        if !isAPI, prefix.count < ContentKind.sniffLength {
            prefix.append(contentsOf: data.prefix(ContentKind.sniffLength - prefix.count))
            if prefix.count >= ContentKind.sniffLength {
                kind = ContentKind.sniff(prefix)
                if !expected.accepts(kind) {
                    abortReason = .unexpectedContent(kind, contentType: contentType)
                    return 0
                }
            }
        }
        if received == 0, let onHead {
            onHead(Self.response(status, responseFields))
            self.onHead = nil
        }
        do {
            try writeChunk(data)
        } catch {
            abortReason = .storage(String(describing: error))
            return 0
        }
        received += data.count
        counter?.add(data.count)
        return data.count
    }

    /// One header line. A status line starts a new response (after a redirect), so the
    /// headers remembered so far are forgotten. Called for every header of every
    /// response on the transfer thread, which all downloads share: bytes are
    /// compared in place, and only the values kept become strings.
    fileprivate func header(_ line: UnsafeRawBufferPointer) {
        let text = Self.trimmed(line[...])
        guard !text.isEmpty else { return }
        if text.starts(with: "HTTP/".utf8) {
            let afterVersion = text.drop { $0 != 0x20 }.drop { $0 == 0x20 }
            status = Int(Self.latin1(afterVersion.prefix { $0 != 0x20 })) ?? 0
            responseVersion = text.starts(with: "HTTP/1".utf8) ? 1 : text.starts(with: "HTTP/2".utf8) ? 2
                : text.starts(with: "HTTP/3".utf8) ? 3 : responseVersion
            contentType = nil
            retryAfter = nil
            responseFields = [:]
            return
        }
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = text[..<colon]
        let value = Self.trimmed(text[(colon + 1)...])
        if Self.equalsIgnoringCase(name, "content-type") {
            contentType = Self.latin1(value.prefix(200))
        } else if Self.equalsIgnoringCase(name, "retry-after") {
            retryAfter = RetryPolicy.parseRetryAfter(Self.latin1(value.prefix(200)), now: Date())
        }
        // Bounded: the headers come from a stranger too.
        if isAPI, responseFields.count < 200, let fieldName = HTTPField.Name(Self.latin1(name)) {
            responseFields.append(HTTPField(name: fieldName, value: Self.latin1(value.prefix(8192))))
        }
    }

    /// A status line and headers as swift-http-types has them; a status outside 0...999
    /// (a stranger's status line) is clamped, since the type refuses it.
    static func response(_ status: Int, _ fields: HTTPFields) -> HTTPResponse {
        HTTPResponse(status: .init(code: min(max(status, 0), 999)), headerFields: fields)
    }

    /// Scheme, host and port: what shares connections (and so the per-host cap).
    static func originKey(_ url: String) -> String {
        guard let comps = URLComponents(string: url), let scheme = comps.scheme?.lowercased() else { return "" }
        let port = comps.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(comps.host?.lowercased() ?? ""):\(port)"
    }

    /// Without leading and trailing spaces, tabs, CR and LF.
    static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }) else { return bytes[bytes.endIndex...] }
        let last = bytes.lastIndex(where: { !isSpace($0) })!
        return bytes[first...last]
    }

    static func equalsIgnoringCase(_ bytes: Slice<UnsafeRawBufferPointer>, _ lowercase: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        guard bytes.count == expected.count else { return false }
        for (byte, wanted) in zip(bytes, expected) {
            let folded: UInt8 = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            if folded != wanted { return false }
        }
        return true
    }

    /// Header bytes as ISO-8859-1 (RFC 9110's historical charset): every byte is a character.
    static func latin1(_ bytes: some Sequence<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
        return String(scalars)
    }

    /// Why a request cannot be sent, or nil when it can: a URL with control bytes, a
    /// method this client does not send, or a header value over 16384 bytes. (Names and values are well formed by
    /// their type.) The message never quotes a value, which may be a secret.
    static func requestProblem(_ request: APIRequest) -> String? {
        guard !request.urlWasRewritten else { return "the URL holds a control character or a space at an end" }
        guard [.get, .head, .post, .put, .delete].contains(request.head.method) else {
            return "method \(request.head.method.rawValue) is not one this client sends"
        }
        for field in request.headers where field.value.utf8.count > 16_384 {
            return "the request header \(field.name.rawName) is longer than 16384 bytes"
        }
        return nil
    }

    /// Turns libcurl's result code and what the callbacks saw into an outcome.
    func outcome(code: CURLcode) -> CurlOutcome {
        var info: Int = 0
        tc_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &info)
        var effective: UnsafePointer<CChar>?
        tc_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effective)
        let finalStatus = info != 0 ? info : status
        var failure: FetchFailure?
        if code == CURLE_OK {
            if isAPI {
                // Any status is an answer; the caller reads it and the body.
            } else if !(200..<300).contains(finalStatus) {
                failure = .httpStatus(finalStatus)
            } else if received == 0 {
                failure = .emptyBody
            } else if prefix.count < ContentKind.sniffLength {
                kind = ContentKind.sniff(prefix)
                if !expected.accepts(kind) { failure = .unexpectedContent(kind, contentType: contentType) }
            }
        } else {
            failure = abortReason ?? classify(code)
        }
        return CurlOutcome(
            failure: failure, status: finalStatus, kind: kind, contentType: contentType,
            retryAfter: retryAfter, received: received,
            effectiveURL: effective.map { String(cString: $0) } ?? url, fields: responseFields)
    }

    private func classify(_ code: CURLcode) -> FetchFailure {
        let message = errorBuffer.pointee != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        return Self.failure(code, message: message, maxBytes: maxBytes, maxRedirects: maxRedirects)
    }

    /// libcurl's result code as a failure a user can act on; `message` is libcurl's
    /// error buffer, or its text for the code.
    static func failure(_ code: CURLcode, message: String, maxBytes: Int = 0, maxRedirects: Int = 0) -> FetchFailure {
        switch code {
        case CURLE_FILESIZE_EXCEEDED: return .tooLarge(limit: maxBytes)
        case CURLE_TOO_MANY_REDIRECTS: return .tooManyRedirects(limit: maxRedirects)
        case CURLE_UNSUPPORTED_PROTOCOL: return .redirectToUnsupportedScheme
        case CURLE_OPERATION_TIMEDOUT: return .timedOut(message)
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_SSL_CONNECT_ERROR:
            return .connectionFailed(message)
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return .connectionInterrupted(message)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR:
            return .untrustedCertificate(message)
        case CURLE_ABORTED_BY_CALLBACK: return .cancelled
        default: return .transport(code: Int(code.rawValue), message: message)
        }
    }
}

private let curlWriteCallback: tc_curl_data_cb = { ptr, size, nmemb, userdata in
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let count = size &* nmemb
    guard count > 0, let ptr else { return 0 }
    return transfer.receive(UnsafeRawBufferPointer(start: ptr, count: count))
}

private let curlHeaderCallback: tc_curl_data_cb = { ptr, size, nmemb, userdata in
    let count = size &* nmemb
    guard let userdata, let ptr else { return count }
    Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        .header(UnsafeRawBufferPointer(start: ptr, count: count))
    return count
}

extension Duration {
    /// Whole milliseconds, for libcurl's `long` options.
    var milliseconds: Int {
        let (s, atto) = components
        return Int(s) * 1000 + Int(atto / 1_000_000_000_000_000)
    }
}

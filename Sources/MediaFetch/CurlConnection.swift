internal import CCurl
internal import CTweetCache
import Foundation
import Synchronization

/// A byte stream that libcurl opened (TCP for `http://`, TLS for `https://`) and then
/// left to the caller: for a protocol libcurl 7.88 does not speak itself, the WebSocket
/// of Bluesky's Jetstream.
///
/// The connection is made with the fetcher's own settings (its certificate authorities,
/// connect timeout, proxies from the environment, `http`/`https` only), so a stream trusts
/// what a download trusts. HTTP/1.1 is asked for in TLS's ALPN: a protocol that starts
/// with an HTTP/1.1 request (an upgrade) must not find an HTTP/2 connection.
///
/// Every call blocks, so a connection belongs on a thread of its own, never on the
/// cooperative pool; ``interrupt()`` is the one call made from elsewhere.
public final class CurlConnection: @unchecked Sendable {
    private let easy: UnsafeMutableRawPointer
    private let socket: Int32
    /// A socket pair whose first end every wait also watches: ``interrupt()`` writes to the other.
    private let wake: (read: Int32, write: Int32)
    private let interrupted = Atomic<Bool>(false)

    private init(easy: UnsafeMutableRawPointer, socket: Int32, wake: (Int32, Int32)) {
        self.easy = easy
        self.socket = socket
        self.wake = wake
    }

    deinit {
        curl_easy_cleanup(easy)
        Glibc.close(wake.read)
        Glibc.close(wake.write)
    }

    /// Connects to `url`'s host and port (`http` or `https`; the path is the caller's to
    /// send), within the configuration's connect timeout. Blocks, and ``interrupt()``
    /// cannot end it early: the timeout bounds it.
    public static func open(url: String, configuration c: FetchConfiguration) throws(FetchFailure) -> CurlConnection {
        do { try CurlGlobal.initialize() } catch { throw .transport(code: -1, message: error.description) }
        guard let scheme = url.split(separator: ":", maxSplits: 1).first?.lowercased(),
              scheme == "http" || scheme == "https"
        else { throw .unsupportedScheme(url) }
        guard let easy = curl_easy_init() else { throw .transport(code: -1, message: "curl_easy_init failed") }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }
        tc_easy_setopt_string(easy, CURLOPT_URL, url)
        tc_easy_setopt_long(easy, CURLOPT_CONNECT_ONLY, 1)
        tc_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        tc_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        tc_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        // Through a proxy, a tunnel (CONNECT) for http:// too: the bytes are the caller's protocol.
        tc_easy_setopt_long(easy, CURLOPT_HTTPPROXYTUNNEL, 1)
        tc_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, c.connectTimeout.milliseconds)
        CurlGlobal.trustOptions(for: c.certificateAuthorities).apply(to: easy)
        tc_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        let code = curl_easy_perform(easy)
        guard code == CURLE_OK else {
            let message = errorBuffer.pointee != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
            tc_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, nil)
            curl_easy_cleanup(easy)
            throw CurlTransfer.failure(code, message: message)
        }
        tc_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, nil)
        var socket: curl_socket_t = -1
        var fds: [Int32] = [-1, -1]
        // A socket pair rather than a pipe: made close-on-exec at once, so a process
        // started meanwhile by another thread never inherits it.
        let pairType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard tc_easy_getinfo_socket(easy, CURLINFO_ACTIVESOCKET, &socket) == CURLE_OK, socket >= 0,
              socketpair(AF_UNIX, pairType, 0, &fds) == 0
        else {
            curl_easy_cleanup(easy)
            throw .transport(code: -1, message: "no socket after connecting")
        }
        return CurlConnection(easy: easy, socket: socket, wake: (fds[0], fds[1]))
    }

    /// Sends every byte, waiting at most until `deadline` for the socket to take them.
    public func send(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(FetchFailure) {
        var offset = 0
        while offset < bytes.count {
            var sent = 0
            let code = bytes.withUnsafeBytes { all in
                curl_easy_send(easy, all.baseAddress! + offset, all.count - offset, &sent)
            }
            switch code {
            case CURLE_OK: offset += sent
            case CURLE_AGAIN: try wait(for: Int16(POLLOUT), until: deadline)
            default: throw CurlTransfer.failure(code, message: String(cString: curl_easy_strerror(code)))
            }
        }
    }

    /// Up to `limit` bytes as they arrive; empty when the peer closed the connection,
    /// nil when nothing came before `deadline`.
    public func receive(limit: Int, deadline: ContinuousClock.Instant) throws(FetchFailure) -> [UInt8]? {
        while true {
            if interrupted.load(ordering: .acquiring) { throw .cancelled }
            var code = CURLE_OK
            // Read first: TLS may hold decrypted bytes that the socket no longer shows.
            // The buffer is not zeroed first: only the bytes libcurl wrote are kept.
            let bytes = [UInt8](unsafeUninitializedCapacity: limit) { buffer, count in
                var got = 0
                code = curl_easy_recv(easy, buffer.baseAddress, buffer.count, &got)
                count = code == CURLE_OK ? got : 0
            }
            switch code {
            case CURLE_OK:
                return bytes
            case CURLE_AGAIN:
                do { try wait(for: Int16(POLLIN), until: deadline) } catch .timedOut { return nil }
            default:
                throw CurlTransfer.failure(code, message: String(cString: curl_easy_strerror(code)))
            }
        }
    }

    /// Wakes a wait in ``send(_:deadline:)`` or ``receive(limit:deadline:)`` on any
    /// thread, which then throws ``FetchFailure/cancelled``; every later call throws it too.
    public func interrupt() {
        guard !interrupted.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt8 = 1
        _ = Glibc.write(wake.write, &one, 1)
    }

    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) throws(FetchFailure) {
        var fds = [pollfd(fd: socket, events: events, revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        while true {
            if interrupted.load(ordering: .acquiring) { throw .cancelled }
            let left = deadline - .now
            guard left > .zero else { throw .timedOut("no progress before the deadline") }
            let ms = Int32(clamping: max(1, left.milliseconds))
            let n = poll(&fds, 2, ms)
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw .connectionInterrupted("poll: \(String(cString: strerror(errno)))") }
            if fds[1].revents != 0 { throw .cancelled }
            if fds[0].revents != 0 { return }
        }
    }
}

import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for tests, able to misbehave on purpose.
///
/// Tests must talk to a real server over real sockets (never a mock of libcurl), and
/// the misbehaviours that matter — a body that trickles, a connection reset half way,
/// a Content-Length that lies — cannot be produced by a well-behaved server framework.
/// So this one is written on plain sockets, one thread per connection, with keep-alive.
public final class LoopbackHTTPServer: @unchecked Sendable {
    public struct Request: Sendable {
        public var method: String
        /// Path and query as sent, e.g. `/media/a.jpg?name=orig`.
        public var target: String
        /// Header names lowercased.
        public var headers: [String: String]
        /// The body, when one was announced with Content-Length.
        public var body: [UInt8] = []
        public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }
    }

    /// What to do with a request.
    public enum Action: Sendable {
        /// A normal response; `Content-Length` is added.
        case respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = [])
        /// Headers at once, then the body in `chunk`-byte pieces `delay` apart.
        case trickle(status: Int, headers: [(String, String)] = [], body: [UInt8], chunk: Int, delay: Duration)
        /// Announces `declaredLength` bytes, sends `body`, then resets the connection (RST).
        case resetAfter(status: Int, headers: [(String, String)] = [], body: [UInt8], declaredLength: Int)
        /// Closes the connection without answering.
        case hangUp
        /// Headers at once, then whatever the test pushes into `feed`, chunked, until
        /// the feed is closed (the response ends) or the server stops.
        case stream(status: Int, headers: [(String, String)] = [], feed: StreamFeed)
        /// No HTTP of its own: whatever the test pushes into `feed`, as it is (a head and
        /// the bytes after it, such as a WebSocket's), until the feed is closed.
        case raw(feed: StreamFeed)
    }

    public typealias Handler = @Sendable (Request) -> Action

    public let port: Int
    private let listener: Int32
    private let handler: Handler
    private let state = Mutex(State())

    private struct State {
        var log: [Request] = []
        var clients: Set<Int32> = []
        var accepted = 0
        var stopped = false
    }

    /// `http://127.0.0.1:PORT`
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far, in order.
    public var requests: [Request] { state.withLock { $0.log } }

    /// TCP connections accepted so far: fewer than requests means keep-alive worked.
    public var connectionsAccepted: Int { state.withLock { $0.accepted } }

    public func requestCount(path: String) -> Int { requests.filter { $0.path == path }.count }

    public init(handler: @escaping Handler) throws {
        self.handler = handler
        (listener, port) = try LoopbackSocket.listen()
        let t = Thread { [self] in acceptLoop() }
        t.start()
    }

    deinit { stop() }

    /// Closes the listener and every open connection. Safe to call more than once.
    ///
    /// Descriptor numbers are reused as soon as they are closed, and parallel tests open
    /// sockets all the time: shutting down a number after its owner closed it would kill
    /// another test's socket. So everything is shut down once, under the lock, and the
    /// threads that close these descriptors first see `stopped` or deregister under
    /// that same lock.
    public func stop() {
        state.withLock { s in
            guard !s.stopped else { return }
            s.stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for c in s.clients { shutdown(c, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        while true {
            let c = accept(listener, nil, nil)
            if c < 0 {
                // Only stop() ends the loop: a client that reset before being accepted
                // (ECONNABORTED) or a moment without descriptors (EMFILE, under a
                // parallel test run) must not close the listener under the test.
                if state.withLock({ $0.stopped }) { break }
                if errno != EINTR { Thread.sleep(forTimeInterval: 0.005) }
                continue
            }
            var one: Int32 = 1
            setsockopt(c, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let accepted = state.withLock { s -> Bool in
                if s.stopped { return false }
                s.clients.insert(c)
                s.accepted += 1
                return true
            }
            guard accepted else { close(c); break }
            let t = Thread { [self] in serve(c) }
            t.start()
        }
        close(listener)
    }

    private func serve(_ fd: Int32) {
        var buffer: [UInt8] = []
        defer {
            state.withLock { _ = $0.clients.remove(fd) }
            close(fd)
        }
        while let request = readRequest(fd, &buffer) {
            state.withLock { $0.log.append(request) }
            let keepAlive = request.headers["connection"]?.lowercased() != "close"
            switch handler(request) {
            case let .respond(status, headers, body):
                guard send(fd, head(status, headers, length: body.count, keepAlive: keepAlive)),
                      request.method == "HEAD" || send(fd, body) else { return }
                if !keepAlive { return }
            case let .trickle(status, headers, body, chunk, delay):
                guard send(fd, head(status, headers, length: body.count, keepAlive: keepAlive)) else { return }
                var offset = 0
                while offset < body.count {
                    let end = min(body.count, offset + max(1, chunk))
                    guard send(fd, Array(body[offset..<end])) else { return }
                    offset = end
                    Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
                    if state.withLock({ $0.stopped }) { return }
                }
            case let .resetAfter(status, headers, body, declared):
                _ = send(fd, head(status, headers, length: declared, keepAlive: true))
                _ = send(fd, body)
                Thread.sleep(forTimeInterval: 0.05)
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                return
            case .hangUp:
                return
            case let .stream(status, headers, feed):
                var s = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
                for (k, v) in headers { s += "\(k): \(v)\r\n" }
                s += "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                guard send(fd, Array(s.utf8)) else { return }
                while let chunk = feed.next(stopped: { self.state.withLock { $0.stopped } }) {
                    guard chunk.isEmpty || send(fd, Array(String(chunk.count, radix: 16).utf8) + [13, 10] + chunk + [13, 10])
                    else { return }
                }
                _ = send(fd, Array("0\r\n\r\n".utf8))
                return
            case let .raw(feed):
                while let chunk = feed.next(stopped: { self.state.withLock { $0.stopped } }) {
                    guard send(fd, chunk) else { return }
                }
                return
            }
        }
    }

    private func head(_ status: Int, _ headers: [(String, String)], length: Int, keepAlive: Bool) -> [UInt8] {
        var s = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (k, v) in headers { s += "\(k): \(v)\r\n" }
        if !headers.contains(where: { $0.0.lowercased() == "content-length" }) { s += "Content-Length: \(length)\r\n" }
        s += keepAlive ? "Connection: keep-alive\r\n" : "Connection: close\r\n"
        s += "\r\n"
        return Array(s.utf8)
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    private func readRequest(_ fd: Int32, _ buffer: inout [UInt8]) -> Request? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if let end = buffer.firstRange(of: terminator) {
                let headBytes = buffer[..<end.lowerBound]
                buffer.removeSubrange(..<end.upperBound)
                guard let text = String(bytes: headBytes, encoding: .isoLatin1) else { return nil }
                var lines = text.components(separatedBy: "\r\n")
                let first = lines.removeFirst().split(separator: " ")
                guard first.count >= 2 else { return nil }
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                var body: [UInt8] = []
                if let n = headers["content-length"].flatMap(Int.init), n > 0 {
                    while buffer.count < n {
                        let r = recv(fd, &chunk, chunk.count, 0)
                        if r <= 0 { return nil }
                        buffer.append(contentsOf: chunk[..<r])
                    }
                    body = Array(buffer.prefix(n))
                    buffer.removeFirst(n)
                }
                return Request(method: String(first[0]), target: String(first[1]), headers: headers, body: body)
            }
            let r = recv(fd, &chunk, chunk.count, 0)
            if r <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<r])
        }
    }

    private static func reason(_ s: Int) -> String {
        switch s {
        case 200: "OK"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 404: "Not Found"
        case 410: "Gone"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

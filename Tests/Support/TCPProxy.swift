import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP relay in front of a real server, for tests that need the
/// server to go away at a known point of a run: it counts the bytes clients send
/// and, past a threshold, tells the test (which may kill the client) or cuts
/// every connection and refuses the ones after ("the endpoint stopped").
///
/// Plain sockets and a thread per direction, like ``LoopbackHTTPServer``.
public final class TCPProxy: @unchecked Sendable {
    public let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var sent = 0
        var cutAfter: Int?
        var cut = false
        var stopped = false
        var sockets: Set<Int32> = []
        var waiters: [(Int, CheckedContinuation<Bool, Never>)] = []
        var pauseAt: Int?
        /// Answers relayed at most this many bytes at a time, a pause between (a slow gateway).
        var throttle: (bytes: Int, pause: Duration)?
    }

    /// Held by pumps while paused.
    private let gate = NSCondition()

    /// `http://127.0.0.1:PORT`
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Bytes clients have sent through so far.
    public var bytesSent: Int { state.withLock { $0.sent } }

    public init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        (listener, port) = try LoopbackSocket.listen()
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { stop() }

    /// Past `bytes` sent by clients, every connection is cut and new ones are
    /// closed at once (until ``restore()``).
    public func cut(afterSending bytes: Int) {
        let now = state.withLock { s -> Bool in
            s.cutAfter = bytes
            return s.sent >= bytes
        }
        if now { cutAll() }
    }

    /// Relays again.
    public func restore() { state.withLock { $0.cut = false; $0.cutAfter = nil } }

    /// Past `bytes` sent by clients, nothing more is relayed (either way) until ``resume()``.
    public func pause(afterSending bytes: Int) { state.withLock { $0.pauseAt = bytes } }

    /// From now on, answers come `bytes` at a time with `pause` between: a gateway
    /// that answers at once but slowly (``unthrottle()`` ends it).
    public func throttleAnswers(bytes: Int, every pause: Duration) { state.withLock { $0.throttle = (max(1, bytes), pause) } }

    public func unthrottle() { state.withLock { $0.throttle = nil } }

    public func resume() {
        state.withLock { $0.pauseAt = nil }
        gate.lock()
        gate.broadcast()
        gate.unlock()
    }

    /// True once clients have sent `bytes` through; false if `ended` ends first
    /// (the client exited), so a test never waits for bytes that will not come.
    public func waitUntilSent(_ bytes: Int, orUntil ended: AsyncStream<Void>) async -> Bool {
        let watcher = Task { [self] in
            for await _ in ended {}
            releaseWaiters()
        }
        defer { watcher.cancel() }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> Bool in
                if s.sent >= bytes { return true }
                s.waiters.append((bytes, continuation))
                return false
            }
            if ready { continuation.resume(returning: true) }
        }
    }

    private func releaseWaiters() {
        let waiting = state.withLock { s -> [CheckedContinuation<Bool, Never>] in
            defer { s.waiters = [] }
            return s.waiters.map(\.1)
        }
        for continuation in waiting { continuation.resume(returning: false) }
    }

    public func stop() {
        defer { resume() }
        state.withLock { s in
            guard !s.stopped else { return }
            s.stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for fd in s.sockets { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private func cutAll() {
        state.withLock { s in
            s.cut = true
            for fd in s.sockets { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if state.withLock({ $0.stopped }) { break }
                continue
            }
            let refused = state.withLock { $0.cut || $0.stopped }
            if refused {
                close(client)
                continue
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = LoopbackSocket.address(port: upstreamPort)
            let connected = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(upstream)
                close(client)
                continue
            }
            for fd in [client, upstream] {
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            state.withLock { s in s.sockets.insert(client); s.sockets.insert(upstream) }
            let done = Ends()
            let finish = { @Sendable [self] in
                // The second direction to end closes both.
                guard done.end() else { return }
                state.withLock { s in s.sockets.remove(client); s.sockets.remove(upstream) }
                close(client)
                close(upstream)
            }
            Thread { [self] in pump(from: client, to: upstream, counted: true); finish() }.start()
            Thread { [self] in pump(from: upstream, to: client, counted: false); finish() }.start()
        }
        close(listener)
    }

    /// Counts the ends of a relayed connection's two directions.
    private final class Ends: Sendable {
        private let count = Mutex(0)
        /// True for the second.
        func end() -> Bool { count.withLock { n in n += 1; return n == 2 } }
    }

    private func pump(from source: Int32, to destination: Int32, counted: Bool) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let throttle = counted ? nil : state.withLock { $0.throttle }
            if let throttle { usleep(useconds_t(throttle.pause.components.seconds * 1_000_000 + throttle.pause.components.attoseconds / 1_000_000_000_000)) }
            let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, min($0.count, throttle?.bytes ?? $0.count)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            var offset = 0
            while offset < n {
                let w = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + offset, n - offset, Int32(MSG_NOSIGNAL)) }
                if w < 0, errno == EINTR { continue }
                guard w > 0 else { break }
                offset += w
            }
            if offset < n { break }
            if counted { count(n) }
            holdWhilePaused()
        }
        shutdown(destination, Int32(SHUT_WR))
        shutdown(source, Int32(SHUT_RD))
    }

    private func holdWhilePaused() {
        gate.lock()
        while state.withLock({ s in s.pauseAt.map { s.sent >= $0 && !s.stopped } ?? false }) { gate.wait() }
        gate.unlock()
    }

    private func count(_ n: Int) {
        var ready: [CheckedContinuation<Bool, Never>] = []
        let cutNow = state.withLock { s -> Bool in
            s.sent += n
            s.waiters.removeAll { waiter in
                guard s.sent >= waiter.0 else { return false }
                ready.append(waiter.1)
                return true
            }
            if let limit = s.cutAfter, !s.cut, s.sent >= limit { return true }
            return false
        }
        for continuation in ready { continuation.resume(returning: true) }
        if cutNow { cutAll() }
    }
}

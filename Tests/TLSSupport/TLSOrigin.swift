import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// An HTTPS origin on 127.0.0.1 that speaks HTTP/2 (ALPN, falling back to HTTP/1.1), with
/// a certificate signed by a throw-away CA of its own, as a TLS-inspecting proxy or a
/// private mirror would have. Tests trust that CA explicitly, or see the certificate
/// refused.
///
/// The TLS and HTTP/2 are nginx's (``TLSFront``), in front of a plain HTTP/1.1 origin
/// here that answers and counts: the program links one TLS library (libcurl's), and its
/// tests need no second one to serve HTTPS.
///
/// It counts what fetch tuning is about: TCP connections, and how many requests were in
/// flight at once. With `holdUntil`, every response but the first waits until that many
/// requests are in flight (or `maxHold` passes, so a failing test ends), which shows
/// whether a client multiplexes more than its per-host connection cap.
public final class TLSOrigin: Sendable {
    public let port: Int
    /// The CA certificate (PEM) that signed the server's certificate.
    public let caFile: String
    public let directory: URL
    private let group: ServiceGroup
    private let task: Task<Void, any Error>
    private let counters: Counters
    private let holdTimer: Task<Void, Never>?

    public var baseURL: String { "https://127.0.0.1:\(port)" }
    /// TCP connections the client opened (the distinct numbers nginx gave them).
    public var connections: Int { counters.state.withLock { $0.clientPorts.count } }
    /// The most requests in flight at once.
    public var maxInFlight: Int { counters.state.withLock { $0.maxInFlight } }
    public var requests: Int { counters.state.withLock { $0.requests } }
    /// Whether every request came over HTTP/2.
    public var allHTTP2: Bool { counters.state.withLock { $0.http1Requests == 0 } }

    final class Counters: Sendable {
        struct State {
            var clientPorts: Set<String> = []
            var inFlight = 0
            var maxInFlight = 0
            var requests = 0
            var http1Requests = 0
            var held: [CheckedContinuation<Void, Never>] = []
            var released = false
        }
        let state = Mutex(State())

        /// Resumes every held response (once enough are in flight, or at the safety timeout).
        func release() {
            let held = state.withLock { s -> [CheckedContinuation<Void, Never>] in
                s.released = true
                defer { s.held.removeAll() }
                return s.held
            }
            for c in held { c.resume() }
        }

        /// Waits until released; returns at once when already released.
        func hold(until count: Int) async {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.released { return true }
                    s.held.append(c)
                    return false
                }
                if resumeNow { c.resume() }
                if state.withLock({ $0.maxInFlight >= count }) { release() }
            }
        }
    }

    /// What nginx says of the client's side: its connection's number and protocol.
    struct Context: RequestContext {
        var coreContext: CoreRequestContextStorage
        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
        }
    }

    private let front: TLSFront

    private init(front: TLSFront, group: ServiceGroup, task: Task<Void, any Error>,
                 counters: Counters, holdTimer: Task<Void, Never>?) {
        self.holdTimer = holdTimer
        self.front = front
        port = front.port
        caFile = front.caFile
        directory = front.directory
        self.group = group
        self.task = task
        self.counters = counters
    }

    /// Serves `body(path)` (nil: 404) as image/jpeg.
    public static func start(
        holdUntil: Int = 0, maxHold: Duration = .seconds(5), body: @escaping @Sendable (String) -> [UInt8]?
    ) async throws -> TLSOrigin {
        let counters = Counters()
        let router = Router(context: Context.self)
        router.get("**") { request, context -> Response in
            let isFirst = counters.state.withLock { s -> Bool in
                s.requests += 1
                s.inFlight += 1
                s.maxInFlight = max(s.maxInFlight, s.inFlight)
                if let connection = request.headers[HTTPField.Name(TLSFront.connectionField)!] { s.clientPorts.insert(connection) }
                if request.headers[HTTPField.Name(TLSFront.protocolField)!] != "HTTP/2.0" { s.http1Requests += 1 }
                return s.requests == 1
            }
            defer { counters.state.withLock { $0.inFlight -= 1 } }
            if holdUntil > 0, !isFirst { await counters.hold(until: holdUntil) }
            guard let bytes = body(request.uri.path) else { return Response(status: .notFound) }
            var headers = HTTPFields()
            headers[.contentType] = "image/jpeg"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "tweetcache.tls-origin")
        logger.logLevel = .critical
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "tweetcache-tls-origin"),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task { try await group.run() }
        // A safety net so a client that never gets there fails its test instead of hanging.
        let holdTimer: Task<Void, Never>? = holdUntil > 0 ? Task { [counters] in
            try? await Task.sleep(for: maxHold)
            counters.release()
        } : nil
        var bound = 0
        for await p in stream { bound = p }
        guard bound > 0 else {
            await group.triggerGracefulShutdown()
            throw POSIXError(.EADDRNOTAVAIL)
        }
        let front: TLSFront
        do { front = try await TLSFront.start(backendPort: bound) } catch {
            task.cancel()
            throw error
        }
        return TLSOrigin(front: front, group: group, task: task, counters: counters, holdTimer: holdTimer)
    }

    public func stop() async {
        holdTimer?.cancel()
        counters.release()
        await front.stop()
        task.cancel()
        _ = await task.result
    }
}

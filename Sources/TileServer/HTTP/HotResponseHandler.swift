import NIOCore
import NIOHTTP1

/// Repeats a cached `200` answer to a plain `GET` of an immutable resource
/// straight from the channel pipeline, without the async responder.
///
/// Profiles of `serve` under load put most of the cost of a cached tile in the
/// trip from the event loop into a request task and back (the async request
/// and response streams, a task per request, per-request logger and context),
/// not in the answer, which is a lookup. Viewers ask for the same tiles over
/// and over, so this handler, in the pipeline of ``TileServerChannel`` right
/// after HTTP decoding, answers those repeats itself. It answers only when
/// - the same `Host` and target got a `200` marked `immutable` from the
///   responder before: every check the responder makes has passed for exactly
///   these bytes, and content addressing means they cannot change;
/// - the request is a plain keep-alive HTTP/1.1 `GET`: no conditional, `Range`,
///   `Expect` or body, whose rules stay in one place, the responder;
/// - no earlier request on this connection is still with the responder, so
///   answers to pipelined requests stay in order;
/// - the connection is writable, so a client that does not read its answers
///   meets the responder's backpressure instead of growing a buffer here.
/// Everything else passes through unchanged.
///
/// Hummingbird's idle timeout counts only the requests it sees, so this handler
/// keeps the connection's idle timeout instead.
final class HotResponseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let cache: MemoryCache<HotResponse.Key, HotResponse>
    private let idleTimeout: TimeAmount

    /// Requests passed on whose response has not ended yet.
    private var withResponder = 0
    /// The rest of a request answered here (its body and end) is dropped.
    private var discarding = false
    private var needsFlush = false
    /// On the event loop's clock (`EventLoop.now`), which tests advance by hand.
    private var lastActive = NIODeadline.uptimeNanoseconds(0)
    private var idleCheck: Scheduled<Void>?
    /// The response encoder's context, when the pipeline has one (a server's does; a
    /// test's bare channel does not): repeats are written below it, as bytes.
    private var encoder: ChannelHandlerContext?

    /// Told when the client hangs up (its input ends, or the connection closes): the
    /// handler already sits on every connection, so the watch costs no handler more.
    private let watch: ConnectionWatch?
    private let onLeave: @Sendable () -> Void

    init(cache: MemoryCache<HotResponse.Key, HotResponse>, idleTimeout: Duration, watch: ConnectionWatch? = nil,
         onLeave: @escaping @Sendable () -> Void = {}) {
        self.cache = cache
        self.watch = watch
        self.onLeave = onLeave
        let (seconds, attoseconds) = idleTimeout.components
        self.idleTimeout = .nanoseconds(max(1, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastActive = context.eventLoop.now
        switch unwrapInboundIn(data) {
        case let .head(request):
            heads &+= 1
            if canAnswer(context), let hit = hit(for: request) {
                if let encoder {
                    // Written below the response encoder (it is between responses
                    // here: no earlier answer is still being written).
                    answer(hit, writingTo: encoder)
                } else {
                    let started = ContinuousClock.now
                    var headers = hit.headers
                    headers.add(name: "Date", value: HTTPDate.now())
                    context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
                                  promise: nil)
                    context.write(wrapOutboundOut(.body(.byteBuffer(hit.body))), promise: nil)
                    context.write(wrapOutboundOut(.end(nil)), promise: nil)
                    hit.metrics.record(ContinuousClock.now - started)
                }
                needsFlush = true
                discarding = true
                return
            }
            withResponder += 1
            context.fireChannelRead(data)
        case .body:
            if !discarding { context.fireChannelRead(data) }
        case .end:
            if discarding { discarding = false } else { context.fireChannelRead(data) }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    // MARK: Shared with RawHotRequestHandler

    /// Request heads seen (decoded by NIO), answered here or passed on: the raw
    /// handler before the decoder checks that each request it hands the decoder
    /// comes out as one head.
    private(set) var heads = 0

    /// No request is with the responder or half read, and the client reads its
    /// answers: an answer written now is the connection's next.
    func canAnswer(_ context: ChannelHandlerContext) -> Bool {
        withResponder == 0 && !discarding && context.channel.isWritable
    }

    /// The connection was active now (bytes came in that this handler may not see).
    func touch(_ context: ChannelHandlerContext) {
        lastActive = context.eventLoop.now
    }

    func hit(_ key: HotResponse.Key) -> HotResponse? { cache.get(key) }

    /// Writes `hit` as bytes through `context`, which must be below the response
    /// encoder: the kept status line and headers, `Date`, the blank line, the body.
    /// Nothing is flushed.
    func answer(_ hit: HotResponse, writingTo context: ChannelHandlerContext) {
        let started = ContinuousClock.now
        let date = HTTPDate.now()
        var head = context.channel.allocator.buffer(capacity: hit.head.readableBytes + date.utf8.count + 10)
        head.writeImmutableBuffer(hit.head)
        head.writeStaticString("Date: ")
        head.writeString(date)
        head.writeStaticString("\r\n\r\n")
        context.write(NIOAny(head), promise: nil)
        context.write(NIOAny(hit.body), promise: nil)
        hit.metrics.record(ContinuousClock.now - started)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            // Not below zero: an answer to a request that never parsed (400) has no head here.
            withResponder = max(0, withResponder - 1)
            lastActive = context.eventLoop.now
        }
        context.write(data, promise: promise)
    }

    /// The key is the `Host` and request target as sent; the responder keys its
    /// answers by the same two (HTTPTypes' authority and path), so an absolute-form
    /// target, which HTTPTypes rewrites, never matches and simply goes on.
    ///
    /// One pass over the headers (this runs for every request a connection sends):
    /// the `Host`, a `Connection` that closes, and any header only the responder
    /// implements.
    private func hit(for request: HTTPRequestHead) -> HotResponse? {
        guard request.method == .GET, request.version == .http1_1 else { return nil }
        var host: String?
        for (name, value) in request.headers {
            if Self.passedOn.contains(where: { Self.sameName(name, $0) }) { return nil }
            if Self.sameName(name, "host") {
                guard host == nil else { return nil }  // two: the responder says 400
                host = value
            } else if Self.sameName(name, "connection"), value.lowercased().contains("close") {
                return nil
            } else if Self.sameName(name, "proxy-connection") {
                // llhttp reads it as `Connection` (a close ends its connection): the responder's.
                return nil
            }
        }
        return cache.get(HotResponse.Key(authority: host, target: request.uri))
    }

    /// Headers whose meaning only the responder implements, lower-cased (the raw
    /// handler before the decoder passes the same on).
    static let passedOn: [StaticString] = [
        "if-none-match", "if-match", "if-modified-since", "if-unmodified-since", "if-range", "range", "expect",
        "content-length", "transfer-encoding",
    ]

    /// A header name against a lower-case ASCII one, ignoring case.
    @inline(__always)
    static func sameName(_ name: String, _ lowercase: StaticString) -> Bool {
        name.utf8.count == lowercase.utf8CodeUnitCount && lowercase.withUTF8Buffer { expected in
            var index = 0
            for byte in name.utf8 {
                let folded = byte >= 65 && byte <= 90 ? byte | 0x20 : byte
                if folded != expected[index] { return false }
                index += 1
            }
            return true
        }
    }

    // MARK: Idle timeout

    func handlerAdded(context: ChannelHandlerContext) {
        encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
        lastActive = context.eventLoop.now
        if context.channel.isActive { scheduleIdleCheck(context, at: lastActive + idleTimeout) }
    }

    func channelActive(context: ChannelHandlerContext) {
        lastActive = context.eventLoop.now
        scheduleIdleCheck(context, at: lastActive + idleTimeout)
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { clientLeft() }
        context.fireUserInboundEventTriggered(event)
    }

    private func clientLeft() {
        guard let watch, watch.isConnected else { return }
        watch.clientLeft()
        onLeave()
    }

    func channelInactive(context: ChannelHandlerContext) {
        clientLeft()
        cancelIdleCheck()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        encoder = nil
        cancelIdleCheck()
    }

    private func scheduleIdleCheck(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        guard idleCheck == nil else { return }
        idleCheck = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            idleCheck = nil
            let due = lastActive + idleTimeout
            let idle = withResponder == 0 && !discarding
            let now = context.eventLoop.now
            if idle, due <= now {
                context.close(promise: nil)
            } else {
                // A request still with the responder is bounded by the request
                // time limit; look again a whole timeout later.
                scheduleIdleCheck(context, at: idle ? due : now + idleTimeout)
            }
        }
    }

    private func cancelIdleCheck() {
        idleCheck?.cancel()
        idleCheck = nil
    }
}

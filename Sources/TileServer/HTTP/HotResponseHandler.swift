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

    init(cache: MemoryCache<HotResponse.Key, HotResponse>, idleTimeout: Duration) {
        self.cache = cache
        let (seconds, attoseconds) = idleTimeout.components
        self.idleTimeout = .nanoseconds(max(1, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastActive = context.eventLoop.now
        switch unwrapInboundIn(data) {
        case let .head(request):
            if withResponder == 0, context.channel.isWritable, let hit = hit(for: request) {
                let started = ContinuousClock.now
                var headers = hit.headers
                headers.add(name: "Date", value: HTTPDate.now())
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
                              promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(hit.body))), promise: nil)
                context.write(wrapOutboundOut(.end(nil)), promise: nil)
                needsFlush = true
                discarding = true
                hit.metrics.record(ContinuousClock.now - started)
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
    private func hit(for request: HTTPRequestHead) -> HotResponse? {
        guard request.method == .GET, request.version == .http1_1, request.isKeepAlive else { return nil }
        for name in Self.passedOn where request.headers.contains(name: name) { return nil }
        return cache.get(HotResponse.Key(authority: request.headers.first(name: "Host"), target: request.uri))
    }

    /// Headers whose meaning only the responder implements.
    private static let passedOn = [
        "If-None-Match", "If-Match", "If-Modified-Since", "If-Unmodified-Since", "If-Range", "Range", "Expect",
        "Content-Length", "Transfer-Encoding",
    ]

    // MARK: Idle timeout

    func handlerAdded(context: ChannelHandlerContext) {
        lastActive = context.eventLoop.now
        if context.channel.isActive { scheduleIdleCheck(context, at: lastActive + idleTimeout) }
    }

    func channelActive(context: ChannelHandlerContext) {
        lastActive = context.eventLoop.now
        scheduleIdleCheck(context, at: lastActive + idleTimeout)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelIdleCheck()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
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

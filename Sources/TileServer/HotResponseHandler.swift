import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Repeats a cached `200` answer to a plain `GET` of an immutable resource
/// straight from the channel pipeline, without the async responder.
///
/// Profiles of `serve` under load put most of the cost of a cached tile in the
/// trip from the event loop into a request task and back (the async request
/// and response streams, a task per request, per-request logger and context),
/// not in the answer, which is a lookup. Viewers ask for the same tiles over
/// and over, so this handler, installed through Hummingbird's
/// `additionalChannelHandlers` (after HTTP decoding, before request handling),
/// answers those repeats itself. It answers only when
/// - the same authority and path got a `200` marked `immutable` from the
///   responder before: every check the responder makes has passed for exactly
///   these bytes, and content addressing means they cannot change;
/// - the request is a plain `GET`: no conditional, `Range`, `Expect`,
///   `Connection` header or body, whose rules stay in one place, the responder;
/// - no earlier request on this connection is still with the responder, so
///   answers to pipelined requests stay in order;
/// - the connection is writable, so a client that does not read its answers
///   meets the responder's backpressure instead of growing a buffer here.
/// Everything else passes through unchanged.
///
/// Hummingbird's idle timeout counts only the requests it sees, so this handler
/// keeps the connection's idle timeout instead (the server turns Hummingbird's off).
final class HotResponseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let cache: MemoryCache<HotResponse>
    private let metrics: ServerMetrics
    private let idleTimeout: TimeAmount
    private let serverName: String

    /// Requests passed on whose response has not ended yet.
    private var withResponder = 0
    /// The rest of a request answered here (its body and end) is dropped.
    private var discarding = false
    private var needsFlush = false
    private var lastActive = NIODeadline.now()
    private var idleCheck: Scheduled<Void>?

    init(cache: MemoryCache<HotResponse>, metrics: ServerMetrics, idleTimeout: Duration, serverName: String) {
        self.cache = cache
        self.metrics = metrics
        let (seconds, attoseconds) = idleTimeout.components
        self.idleTimeout = .nanoseconds(max(1, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
        self.serverName = serverName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastActive = .now()
        switch unwrapInboundIn(data) {
        case let .head(request):
            if withResponder == 0, context.channel.isWritable, let hit = hit(for: request) {
                let started = ContinuousClock.now
                var headers = hit.headers
                headers[.date] = HTTPDate.now()
                headers[.server] = serverName
                context.write(wrapOutboundOut(.head(HTTPResponse(status: .ok, headerFields: headers))), promise: nil)
                context.write(wrapOutboundOut(.body(hit.body)), promise: nil)
                context.write(wrapOutboundOut(.end(nil)), promise: nil)
                needsFlush = true
                discarding = true
                metrics.request(route: hit.route, status: 200, duration: ContinuousClock.now - started)
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
            withResponder -= 1
            lastActive = .now()
        }
        context.write(data, promise: promise)
    }

    private func hit(for request: HTTPRequest) -> HotResponse? {
        guard request.method == .get, let path = request.path else { return nil }
        for field in request.headerFields where Self.passedOn.contains(field.name) { return nil }
        return cache.get(HotResponse.key(authority: request.authority, path: path))
    }

    /// Headers whose meaning only the responder implements.
    private static let passedOn: Set<HTTPField.Name> = [
        .ifNoneMatch, .ifMatch, .ifModifiedSince, .ifUnmodifiedSince, .ifRange, .range, .expect, .connection,
        .contentLength, .transferEncoding,
    ]

    // MARK: Idle timeout

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { scheduleIdleCheck(context, at: .now() + idleTimeout) }
    }

    func channelActive(context: ChannelHandlerContext) {
        scheduleIdleCheck(context, at: .now() + idleTimeout)
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
            if withResponder == 0, !discarding, due <= .now() {
                context.close(promise: nil)
            } else {
                // A request still with the responder is bounded by the request
                // time limit; look again a whole timeout later.
                scheduleIdleCheck(context, at: withResponder == 0 ? due : .now() + idleTimeout)
            }
        }
    }

    private func cancelIdleCheck() {
        idleCheck?.cancel()
        idleCheck = nil
    }
}

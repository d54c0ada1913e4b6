import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1.1 child channel with one handler more: the
/// ``HotResponseHandler``, placed where it sees requests as NIO decoded them,
/// before their conversion to HTTPTypes.
///
/// The pipeline is otherwise the one Hummingbird's `HTTP1Channel` builds (same
/// codec, decoder limits and connection state handling); requests the hot
/// handler does not answer go to the responder exactly as they would there.
/// Hummingbird's idle timeout is off: it counts only requests it sees, so the
/// hot handler keeps the timeout for the connection.
struct TileServerChannel: ServerChildChannel, HTTPChannelHandler {
    /// The connection, and whether its client is still there (``ConnectionWatch``).
    struct Value: ServerChildChannelValue {
        var connection: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>
        var watch: ConnectionWatch
        var channel: any Channel { connection.channel }
    }

    let responder: HTTPChannelHandler.Responder
    let hot: MemoryCache<HotResponse.Key, HotResponse>
    let idleTimeout: Duration
    /// Called once per connection whose client hung up.
    var onClientLeft: @Sendable () -> Void = {}

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let watch = ConnectionWatch()
            try TileServerPipeline.addHandlers(
                to: channel.pipeline.syncOperations, hot: hot, idleTimeout: idleTimeout, logger: logger, watch: watch,
                onClientLeft: onClientLeft)
            return Value(
                connection: try NIOAsyncChannel(
                    wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true)),
                watch: watch)
        }
    }

    /// The connection's requests are answered in this task: the watch goes with them.
    func handle(value: Value, logger: Logger) async {
        await ConnectionWatch.$current.withValue(value.watch) {
            await handleHTTP(asyncChannel: value.connection, logger: logger)
        }
    }
}

/// The handlers between the socket and the responder, in order. Apart from
/// ``TileServerChannel`` so tests and the fuzzer can put the same request parsing on
/// an `EmbeddedChannel`.
package enum TileServerPipeline {
    package static func addHandlers(
        to pipeline: ChannelPipeline.SynchronousOperations, hot: MemoryCache<HotResponse.Key, HotResponse>,
        idleTimeout: Duration, logger: Logger, watch: ConnectionWatch? = nil, onClientLeft: @escaping @Sendable () -> Void = {},
        answeringFromBytes: Bool = true
    ) throws {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = 80 * 1024
        limits.maxHeaderListSize = 80 * 1024
        limits.maxHeaderFieldCount = 1000
        // What `configureHTTPServerPipeline` adds with no pipelining assistance (answers
        // stay in order: see HotResponseHandler), no error handler (Hummingbird answers
        // parse errors) and no outbound header validation (HTTPTypes validated the
        // responder's headers), but for one thing: the decoder is not paired with the
        // encoder. A paired encoder pops the method of each request it has seen for
        // every head it encodes, to strip bodies from answers to HEAD; the hot handler
        // writes its answers below the encoder, so the pairs would slip by one and a
        // GET after a HEAD would lose its body. The responder never sends a body to
        // HEAD itself (TileResponder.finish, HTTPFailure.response).
        //
        // First of all, the RawHotRequestHandler answers the plainest repeats from their
        // bytes, before the decoder; the HotResponseHandler, which it shares the rules
        // and state of, answers those split across reads or behind another request.
        let hotHandler = HotResponseHandler(cache: hot, idleTimeout: idleTimeout, watch: watch, onLeave: onClientLeft)
        // (`answeringFromBytes: false` leaves it out: the fuzzer checks that every
        // input gets the same answers either way.)
        if answeringFromBytes { try pipeline.addHandler(RawHotRequestHandler(hot: hotHandler)) }
        try pipeline.addHandler(HTTPResponseEncoder(configuration: .init()))
        try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: limits)))
        try pipeline.addHandler(hotHandler)
        try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
        try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
    }
}

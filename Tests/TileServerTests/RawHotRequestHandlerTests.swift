import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing
@testable import TileServer

/// ``RawHotRequestHandler`` in the server's own pipeline on NIO's `EmbeddedChannel`:
/// which requests it answers from their bytes, which it hands to the decoder, and
/// that answers keep their order. The fuzz target `fuzz-server` checks, input by
/// input, that the pipeline answers the same with and without it.
@Suite struct RawHotRequestHandlerTests {
    static let target = "/dzi/tile.jpg"
    static let hot = "GET \(target) HTTP/1.1\r\nHost: cache\r\n\r\n"

    /// Stands in for the responder: keeps the paths it is handed and answers them
    /// when told (``answer(on:)``).
    final class Responder: ChannelInboundHandler {
        typealias InboundIn = HTTPRequestPart
        typealias OutboundOut = HTTPResponsePart
        var paths: [String] = []
        var waiting = 0
        var context: ChannelHandlerContext?

        func handlerAdded(context: ChannelHandlerContext) { self.context = context }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case let .head(request) = unwrapInboundIn(data) else { return }
            paths.append(request.path ?? "")
            waiting += 1
        }

        func answer() {
            guard let context, waiting > 0 else { return }
            waiting -= 1
            var response = HTTPResponse(status: .notFound)
            response.headerFields[.contentLength] = "0"
            context.write(wrapOutboundOut(.head(response)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    struct Pipeline {
        var channel: EmbeddedChannel
        var responder: Responder

        /// Writes `bytes` in reads of `chunk` bytes.
        func send(_ bytes: String, chunk: Int = .max) throws {
            let all = Array(bytes.utf8)
            var start = 0
            while start < all.count {
                let end = min(all.count, start + chunk)
                try channel.writeInbound(ByteBuffer(bytes: all[start..<end]))
                start = end
            }
        }

        /// Everything written to the client since the last call.
        func answered() throws -> String {
            var text = ""
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
            return text
        }

        /// How many requests NIO's decoder has made out of the bytes.
        var decoded: Int {
            (try? channel.pipeline.syncOperations.handler(type: HotResponseHandler.self).heads) ?? -1
        }
    }

    static func pipeline(answeringFromBytes: Bool = true) throws -> Pipeline {
        let cache = MemoryCache<HotResponse.Key, HotResponse>(capacity: 1 << 20)
        cache.put(HotResponse.Key(authority: "cache", target: target), HotResponse(
            headers: ["Content-Type": "image/jpeg", "Content-Length": "4"], body: ByteBuffer(string: "jpeg"),
            metrics: ServerMetrics().metrics(route: "dzi_tile", status: 200), keyBytes: target.utf8.count + 5))
        let channel = EmbeddedChannel()
        let responder = Responder()
        try TileServerPipeline.addHandlers(
            to: channel.pipeline.syncOperations, hot: cache, idleTimeout: .seconds(30), logger: Logger(label: "test"),
            answeringFromBytes: answeringFromBytes)
        try channel.pipeline.syncOperations.addHandler(responder)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 80)).wait()
        return Pipeline(channel: channel, responder: responder)
    }

    static func isTheTile(_ answer: String) -> Bool {
        answer.hasPrefix("HTTP/1.1 200 OK\r\n") && answer.contains("\r\nDate: ") && answer.hasSuffix("\r\n\r\njpeg")
    }

    @Test func aPlainRepeatIsAnsweredBeforeTheDecoder() throws {
        let pipeline = try Self.pipeline()
        try pipeline.send(Self.hot + Self.hot)
        let answer = try pipeline.answered()
        #expect(answer.components(separatedBy: "HTTP/1.1 200 OK").count == 3)
        #expect(Self.isTheTile(answer))
        #expect(pipeline.decoded == 0)
        #expect(pipeline.responder.paths.isEmpty)
    }

    @Test func aHeadSplitAcrossReadsWaitsForItsBlankLine() throws {
        let pipeline = try Self.pipeline()
        try pipeline.send("GET \(Self.target) HTTP/1.1\r\nHost:  cache\r\nAccept: */*\r\nConnection: Keep-Alive\r\n\r\n", chunk: 1)
        #expect(Self.isTheTile(try pipeline.answered()))
        #expect(pipeline.decoded == 0)
    }

    @Test func aRepeatBehindARequestWithTheResponderWaitsItsTurn() throws {
        let pipeline = try Self.pipeline()
        try pipeline.send("GET /slow HTTP/1.1\r\nHost: cache\r\n\r\n" + Self.hot)
        // Answering the repeat now would overtake the first answer.
        #expect(try pipeline.answered().isEmpty)
        #expect(pipeline.responder.paths == ["/slow", Self.target])
        pipeline.responder.answer()
        pipeline.responder.answer()
        #expect(try pipeline.answered().components(separatedBy: "HTTP/1.1 404").count == 3)
        try pipeline.send(Self.hot)
        #expect(Self.isTheTile(try pipeline.answered()))
        #expect(pipeline.decoded == 2)
    }

    @Test(arguments: [
        "HEAD \(target) HTTP/1.1\r\nHost: cache\r\n\r\n",
        "GET \(target) HTTP/1.1\r\nHost: cache\r\nIf-None-Match: \"x\"\r\n\r\n",
        "GET \(target) HTTP/1.1\r\nHost: cache\r\nRANGE: bytes=0-1\r\n\r\n",
        "GET \(target) HTTP/1.1\r\nHost: cache\r\nHost: cache\r\n\r\n",
        "GET \(target) HTTP/1.1\r\n\r\n",
        "GET \(target) HTTP/1.1\r\nHost: other\r\n\r\n",
    ])
    func requestsItMayNotAnswerGoToTheDecoderOneByOne(_ request: String) throws {
        let pipeline = try Self.pipeline()
        try pipeline.send(request)
        #expect(pipeline.decoded == 1)
        pipeline.responder.answer()
        _ = try pipeline.answered()
        // Still at a request's start: the next plain repeat is answered from its bytes.
        try pipeline.send(Self.hot)
        #expect(Self.isTheTile(try pipeline.answered()))
        #expect(pipeline.decoded == 1)
    }

    /// Bare LFs, a body, an upgrade, a folded header: the decoder alone reads the rest of
    /// the connection. So too after a request that ends its connection (the decoder then
    /// refuses what follows, as a request the raw handler answered would not be).
    @Test(arguments: [
        "GET \(target) HTTP/1.1\nHost: cache\n\n",
        "GET \(target) HTTP/1.0\r\nHost: cache\r\n\r\n",
        "GET \(target) HTTP/1.1\r\nHost: cache\r\nConnection: Close\r\n\r\n",
        "GET \(target) HTTP/1.1\r\nHost: cache\r\nProxy-Connection: close\r\n\r\n",
        "CONNECT cache:443 HTTP/1.1\r\nHost: cache\r\n\r\n",
        "POST /api/tweets HTTP/1.1\r\nHost: cache\r\nContent-Length: 4\r\n\r\nGET ",
        "GET /ws HTTP/1.1\r\nHost: cache\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
        "GET \(target) HTTP/1.1\r\nHost: cache\r\nX-Folded: a\r\n b\r\n\r\n",
    ])
    func whatItCannotDelimitIsTheDecodersForGood(_ request: String) throws {
        // The same bytes through the pipeline with and without the handler.
        var outcomes: [(answers: String, paths: [String], decoded: Int)] = []
        for answeringFromBytes in [true, false] {
            let pipeline = try Self.pipeline(answeringFromBytes: answeringFromBytes)
            // A request the decoder rejects comes back as its error.
            var answers = ""
            func send(_ bytes: String) {
                do { try pipeline.send(bytes) } catch { answers += "error: \(error)\n" }
            }
            send(request + Self.hot)
            for _ in 0..<2 {
                while pipeline.responder.waiting > 0 { pipeline.responder.answer() }
                answers += try pipeline.answered()
                if pipeline.channel.isActive { send(Self.hot) }
            }
            let dates = try Regex(#"Date: [^\r]*"#)
            outcomes.append((answers.replacing(dates, with: "Date: -"), pipeline.responder.paths, pipeline.decoded))
        }
        #expect(outcomes[0].answers == outcomes[1].answers)
        #expect(outcomes[0].paths == outcomes[1].paths)
        // Every request was the decoder's to read.
        #expect(outcomes[0].decoded == outcomes[1].decoded)
    }

    @Test func aHeadLongerThanTheLimitIsTheDecoders() throws {
        let pipeline = try Self.pipeline()
        let long = "GET \(Self.target) HTTP/1.1\r\nHost: cache\r\nX-Pad: \(String(repeating: "a", count: 5000))\r\n\r\n"
        try pipeline.send(long, chunk: 1000)
        #expect(Self.isTheTile(try pipeline.answered()))
        #expect(pipeline.decoded == 1)
    }

    @Test func theScanFindsTheKeyAsTheDecoderReadsIt() {
        func scan(_ text: String) -> RawHotRequestHandler.Scan {
            Array(text.utf8).withUnsafeBytes { RawHotRequestHandler.scan($0) }
        }
        let whole = "GET /a?b HTTP/1.1\r\nHost: \texample:8080\r\nAccept: */*\r\n\r\n"
        #expect(scan(whole) == .request(length: whole.utf8.count, key: .init(authority: "example:8080", target: "/a?b")))
        for end in whole.utf8.indices.dropLast() {
            let prefix = String(whole.utf8[..<end])!
            #expect(scan(prefix) == .incomplete, "\(prefix.debugDescription)")
        }
        // Whitespace after the host: the decoder decides what the host is.
        let trailing = "GET /a HTTP/1.1\r\nHost: example \r\n\r\n"
        #expect(scan(trailing) == .request(length: trailing.utf8.count, key: nil))
        #expect(scan("get /a HTTP/1.1\r\n\r\n") == .unusual)
        #expect(scan("GET  /a HTTP/1.1\r\n\r\n") == .unusual)
        #expect(scan("GET /a HTTP/2.0\r\n\r\n") == .unusual)
        #expect(scan("GET /a HTTP/1.0\r\n\r\n") == .unusual)
        // Refused as soon as a byte cannot belong to a request it can read, not held for more.
        #expect(scan("GET /\r\n") == .unusual)
        #expect(scan("GET /a\0") == .unusual)
        #expect(scan("GET /a HTTP/1.1\r\nHost: x\0") == .unusual)
        #expect(scan("\r\nGET /a HTTP/1.1\r\n\r\n") == .unusual)
        #expect(scan("GET /a HTTP/1.1\r\nHost: é\r\n\r\n") == .unusual)
        #expect(scan("GET /a HTTP/1.1\r\nHost : x\r\n\r\n") == .unusual)
        #expect(scan("GET /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") == .unusual)
    }
}

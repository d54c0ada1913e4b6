import BlobStore
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import TileServer

/// Raw bytes from a client, through the tile server's own request parsing: the
/// HTTP/1.1 decoder with the server's limits, the hot-response handler, the
/// conversion to HTTPTypes and the connection state handler (the pipeline
/// `TileServerChannel` builds, here on an `EmbeddedChannel`), then the route parser
/// and the `If-None-Match` reader on every request that gets through. Nothing may
/// trap, and no route may carry a segment that could name another directory. Each
/// input goes through the pipeline twice, with and without the handler that answers
/// hot requests from their bytes, and must get the same answers both times.
public enum ServerCheck: FuzzCheck {
    public static let name = "fuzz-server"

    static let hash = BlobHash(hex: String(repeating: "ab", count: 32))!
    static let etag = "\"\(hash)-iiif-768,512,256,256/256,256/0/default.jpg\""
    /// One hot answer, so inputs that ask for it take the handler's fast path.
    static let hot: MemoryCache<HotResponse.Key, HotResponse> = {
        let cache = MemoryCache<HotResponse.Key, HotResponse>(capacity: 1 << 20)
        let target = "/iiif/3/\(hash)/full/max/0/default.jpg"
        cache.put(HotResponse.Key(authority: "fuzz", target: target), HotResponse(
            headers: ["Content-Type": "image/jpeg", "ETag": etag], body: ByteBuffer(string: "jpeg"),
            metrics: ServerMetrics().metrics(route: "iiif_image", status: 200), keyBytes: target.utf8.count + 4))
        return cache
    }()

    public static func run(_ input: [UInt8]) -> String? {
        let fast: Outcome
        let plain: Outcome
        switch (pass(input, answeringFromBytes: true), pass(input, answeringFromBytes: false)) {
        case let (.failure(problem), _), let (_, .failure(problem)): return problem.finding
        case let (.success(a), .success(b)): (fast, plain) = (a, b)
        }
        if let finding = fast.finding ?? plain.finding { return finding }
        // The raw handler answers only what the decoder and the hot handler would
        // answer alike: the same bytes out (but `Date`), the same requests passed on.
        if fast.answered != plain.answered || fast.paths != plain.paths {
            return "answering from bytes changed the answers: \(fast.paths) \(String(decoding: fast.answered, as: UTF8.self)) "
                + "against \(plain.paths) \(String(decoding: plain.answered, as: UTF8.self))"
        }
        return nil
    }

    struct Problem: Error { var finding: String }

    struct Outcome {
        var finding: String?
        /// Every byte written to the client, each `Date` header's value blanked.
        var answered: [UInt8]
        /// The requests that reached the responder.
        var paths: [String]
    }

    static func pass(_ input: [UInt8], answeringFromBytes: Bool) -> Result<Outcome, Problem> {
        let channel = EmbeddedChannel()
        let checker = RouteChecker()
        do {
            try TileServerPipeline.addHandlers(
                to: channel.pipeline.syncOperations, hot: hot, idleTimeout: .seconds(30), logger: Logger(label: "fuzz"),
                answeringFromBytes: answeringFromBytes)
            try channel.pipeline.syncOperations.addHandler(checker)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        } catch {
            return .failure(Problem(finding: "could not build the pipeline: \(error)"))
        }
        var answered: [UInt8] = []
        func drain() {
            while case let .some(.some(buffer)) = try? channel.readOutbound(as: ByteBuffer.self) {
                answered += buffer.readableBytesView
            }
        }
        // In two writes, so requests split across reads are parsed too.
        let split = input.count / 2
        for part in [input[..<split], input[split...]] where channel.isActive {
            do { try channel.writeInbound(ByteBuffer(bytes: part)) } catch { break }
            drain()
        }
        _ = try? channel.finish()
        drain()
        return .success(Outcome(finding: checker.finding, answered: blankingDates(answered), paths: checker.paths))
    }

    /// `Date: <29 bytes>` with the value blanked: it is the clock's, not the answer's.
    static func blankingDates(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let name = Array("\r\nDate: ".utf8)
        var index = 0
        while index + name.count <= bytes.count {
            if bytes[index..<(index + name.count)].elementsEqual(name) {
                var at = index + name.count
                while at < bytes.count, bytes[at] != UInt8(ascii: "\r") {
                    bytes[at] = UInt8(ascii: "x")
                    at += 1
                }
                index = at
            } else {
                index += 1
            }
        }
        return bytes
    }

    public static func seeds() -> [String: [UInt8]] {
        let h = String(repeating: "ab", count: 32)
        let requests = [
            "GET /iiif/3/\(h)/full/max/0/default.jpg HTTP/1.1\r\nHost: fuzz\r\n\r\n",
            "GET /iiif/3/\(h)/768,512,256,256/256,256/0/default.jpg HTTP/1.1\r\nHost: fuzz\r\n"
                + "If-None-Match: \"\(h)-iiif-768,512,256,256/256,256/0/default.jpg\", W/\"x\"\r\n\r\n",
            "GET /dzi/\(h)_files/9/1/2.jpg HTTP/1.1\r\nHost: fuzz\r\n\r\nGET /dzi/\(h).dzi HTTP/1.1\r\nHost: fuzz\r\n\r\n",
            "HEAD /thumb/\(h)/256.jpg HTTP/1.1\r\nHost: fuzz\r\nRange: bytes=0-10\r\n\r\n",
            "GET /iiif/3/\(h)/info.json HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
            "GET /blob/%2e%2e%2fetc%2fpasswd HTTP/1.1\r\nHost: fuzz\r\n\r\n",
            "GET /viewer/\(h)?x=1 HTTP/1.1\r\nHost: fuzz\r\nIf-None-Match: *\r\n\r\n",
            "POST /api/tweets?cursor=5 HTTP/1.1\r\nHost: fuzz\r\nContent-Length: 3\r\n\r\nabc",
            "GET /manifests/20261124T000000Z.json HTTP/1.1\r\nHost: fuzz\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            // The hot answer, pipelined: behind itself, behind a request with a body, behind one it cannot delimit.
            "GET /iiif/3/\(h)/full/max/0/default.jpg HTTP/1.1\r\nHost:\tfuzz\r\nConnection: keep-alive\r\n\r\n"
                + "GET /iiif/3/\(h)/full/max/0/default.jpg HTTP/1.1\r\nhOST: fuzz\r\nAccept: */*\r\n\r\n",
            "POST /api/tweets HTTP/1.1\r\nHost: fuzz\r\nContent-Length: 4\r\n\r\nGET "
                + "GET /iiif/3/\(h)/full/max/0/default.jpg HTTP/1.1\r\nHost: fuzz\r\n\r\n",
            "GET /iiif/3/\(h)/full/max/0/default.jpg HTTP/1.1\r\nHost: fuzz\r\nProxy-Connection: close\r\n\r\n"
                + "GET /iiif/3/\(h)/full/max/0/default.jpg HTTP/1.1\r\nHost: fuzz\r\n\r\n",
            "GET /iiif/3/\(h)/full/max/0/default.jpg HTTP/1.1\nHost: fuzz\n\n"
                + "GET /iiif/3/\(h)/full/max/0/default.jpg HTTP/1.1\r\nHost: fuzz \r\n\r\n",
        ]
        var seeds: [String: [UInt8]] = [:]
        for (n, request) in requests.enumerated() { seeds["request-\(n)"] = Array(request.utf8) }
        return seeds
    }
}

/// Stands in for the responder: checks what it is handed and answers every request,
/// so the hot handler's count of requests with the responder goes back down.
final class RouteChecker: ChannelInboundHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart
    var finding: String?
    var paths: [String] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case let .head(request) = unwrapInboundIn(data) else { return }
        paths.append(request.path ?? "")
        if let target = request.path {
            let path = String(target.prefix { $0 != "?" })
            if let route = try? Route.parse(path: path) { finding = finding ?? check(route, path: path) }
        }
        _ = ConditionalRequest.matches(request.headerFields[.ifNoneMatch], etag: ServerCheck.etag)
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .ok))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private func check(_ route: Route, path: String) -> String? {
        let segments: [String] = switch route {
        case let .viewerAsset(name): [name]
        case let .manifest(name): [name]
        case let .iiifImage(_, region, size, rotation, qualityFormat): [region, size, rotation, qualityFormat]
        default: []
        }
        for s in segments where s.contains("/") || s.contains("\\") || s == ".." || s == "." || s.contains("\0") {
            return "route \(route) from \(path) carries a path-like segment \(s)"
        }
        return nil
    }
}

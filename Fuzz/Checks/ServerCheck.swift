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
/// trap, and no route may carry a segment that could name another directory.
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
        let channel = EmbeddedChannel()
        let checker = RouteChecker()
        do {
            try TileServerPipeline.addHandlers(
                to: channel.pipeline.syncOperations, hot: hot, idleTimeout: .seconds(30), logger: Logger(label: "fuzz"))
            try channel.pipeline.syncOperations.addHandler(checker)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        } catch {
            return "could not build the pipeline: \(error)"
        }
        // In two writes, so requests split across reads are parsed too.
        let split = input.count / 2
        for part in [input[..<split], input[split...]] where channel.isActive {
            do { try channel.writeInbound(ByteBuffer(bytes: part)) } catch { break }
        }
        while case .some(.some) = try? channel.readOutbound(as: ByteBuffer.self) {}
        _ = try? channel.finish()
        return checker.finding
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

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case let .head(request) = unwrapInboundIn(data) else { return }
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

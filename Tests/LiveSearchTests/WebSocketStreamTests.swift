import Foundation
import MediaFetch
import StreamTestSupport
import Synchronization
import Testing
import TestSupport
import TLSTestSupport
@testable import LiveSearch

/// The WebSocket client under Jetstream: libcurl's connection (TLS through nginx here),
/// the upgrade checked, NIO's frames read, the connection's end told apart.
@Suite(.timeLimit(.minutes(1))) struct WebSocketStreamTests {
    /// Reads messages until `count` came (then stops the stream), or the stream ends.
    static func read(_ stream: WebSocketStream, count: Int = .max) async -> (messages: [String], end: WebSocketStream.End) {
        let got = Mutex<[String]>([])
        let task = Task {
            await stream.run { payload in
                let n = got.withLock { $0.append(String(decoding: payload, as: UTF8.self)); return $0.count }
                if n >= count { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        let end = await task.value
        return (got.withLock { $0 }, end)
    }

    static func configuration(trusting caFile: String? = nil) -> FetchConfiguration {
        var c = FetchConfiguration()
        c.connectTimeout = .seconds(20)
        if let caFile { c.certificateAuthorities = CertificateAuthorities(bundleFile: caFile) }
        return c
    }

    @Test func followsAJetstreamOverTLS() async throws {
        let jetstream = try await FakeJetstream.start()
        let front = try await TLSFront.start(backendPort: jetstream.port)
        jetstream.send(FakeJetstream.post(did: "did:plc:x", rkey: "a1", text: "#ucd over TLS", tags: ["ucd"]))
        let stream = WebSocketStream(url: "wss://127.0.0.1:\(front.port)/subscribe?cursor=1",
                                     configuration: Self.configuration(trusting: front.caFile))
        let (messages, end) = await Self.read(stream, count: 1)
        await front.stop()
        await jetstream.stop()
        #expect(end == .cancelled)
        #expect(messages.count == 1)
        #expect(messages.first?.contains("#ucd over TLS") == true)
        #expect(jetstream.subscriptions.first == "/subscribe?cursor=1")
    }

    @Test func aCertificateFromACANotTrustedIsRefused() async throws {
        let jetstream = try await FakeJetstream.start()
        let front = try await TLSFront.start(backendPort: jetstream.port)
        let stream = WebSocketStream(url: "wss://127.0.0.1:\(front.port)/subscribe", configuration: Self.configuration())
        let (messages, end) = await Self.read(stream)
        await front.stop()
        await jetstream.stop()
        #expect(messages.isEmpty)
        guard case let .failed(why) = end else { Issue.record("expected a failure, got \(end)"); return }
        #expect(why.lowercased().contains("certificate"), "\(why)")
        #expect(jetstream.subscriptions.isEmpty)
    }

    /// A server's frames, unmasked as a server sends them.
    static func frame(_ opcode: UInt8, fin: Bool = true, _ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        switch payload.count {
        case ..<126: bytes.append(UInt8(payload.count))
        case ..<65_536: bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: bytes.append(127); bytes += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        return bytes + payload
    }

    /// A server that answers the upgrade with `head(request key)` and then `frames`.
    static func rawServer(head: @escaping @Sendable (String) -> String, frames: [UInt8], close: Bool = true) throws
        -> LoopbackHTTPServer
    {
        try LoopbackHTTPServer { request in
            let feed = StreamFeed()
            feed.push(head(request.headers["sec-websocket-key"] ?? ""))
            if !frames.isEmpty { feed.push(frames) }
            if close { feed.close() }
            return .raw(feed: feed)
        }
    }

    static func upgrade(_ key: String, accept: String? = nil) -> String {
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(accept ?? WebSocketStream.acceptKey(for: key))\r\n\r\n"
    }

    @Test func fragmentsAreJoinedAndACloseEndsTheStream() async throws {
        let frames = Self.frame(0x1, fin: false, Array("hel".utf8)) + Self.frame(0x9, Array("are you there".utf8))
            + Self.frame(0x0, Array("lo".utf8)) + Self.frame(0x2, Array("second".utf8)) + Self.frame(0x8, [0x03, 0xE8])
        let server = try Self.rawServer(head: { Self.upgrade($0) }, frames: frames, close: false)
        defer { server.stop() }
        let (messages, end) = await Self.read(WebSocketStream(url: "ws://127.0.0.1:\(server.port)/subscribe?x=1",
                                                              configuration: Self.configuration()))
        #expect(messages == ["hello", "second"])
        #expect(end == .closed)
        let request = try #require(server.requests.first)
        #expect(request.target == "/subscribe?x=1")
        #expect(request.headers["upgrade"] == "websocket")
        #expect(request.headers["sec-websocket-version"] == "13")
        #expect(Data(base64Encoded: request.headers["sec-websocket-key"] ?? "")?.count == 16)
    }

    @Test func theServerMustProveItReadTheKey() async throws {
        let server = try Self.rawServer(head: { _ in Self.upgrade("", accept: "bm90IHRoZSByaWdodCBrZXk=") },
                                        frames: Self.frame(0x1, Array("never read".utf8)))
        defer { server.stop() }
        let (messages, end) = await Self.read(WebSocketStream(url: "ws://127.0.0.1:\(server.port)/",
                                                              configuration: Self.configuration()))
        #expect(messages.isEmpty)
        #expect(end == .failed("the server's Sec-WebSocket-Accept is not the one for our key"))
    }

    @Test func aMessageOverTheLimitEndsTheConnectionWithoutReadingIt() async throws {
        // The header announces 2 MB; the client stops at the header, not after the bytes.
        let server = try Self.rawServer(head: { Self.upgrade($0) },
                                        frames: Array(Self.frame(0x1, [UInt8](repeating: 0x61, count: 2 << 20)).prefix(64)),
                                        close: false)
        defer { server.stop() }
        var stream = WebSocketStream(url: "ws://127.0.0.1:\(server.port)/", configuration: Self.configuration())
        stream.maxMessage = 1 << 20
        let (messages, end) = await Self.read(stream)
        #expect(messages.isEmpty)
        guard case let .failed(why) = end else { Issue.record("expected a failure, got \(end)"); return }
        #expect(why.contains("broke the protocol"), "\(why)")
    }

    @Test func anotherStatusIsTheServersAnswer() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 429, body: Array("slow down".utf8)) }
        defer { server.stop() }
        let (_, end) = await Self.read(WebSocketStream(url: "ws://127.0.0.1:\(server.port)/subscribe",
                                                       configuration: Self.configuration()))
        #expect(end == .status(429))
        let jetstream = try Jetstream(queries: [try SearchQuery("#ucd")], url: "ws://127.0.0.1:\(server.port)/subscribe",
                                      appView: "http://127.0.0.1:9")
        let session = StreamSession(fetcher: try HTTPFetcher(configuration: Self.configuration()), clock: SystemWallClock())
        let streamEnd = await jetstream.connect(cursor: nil, session: session) { _ in }
        #expect(streamEnd == .rateLimited(retryAfter: nil))
    }

    @Test func aHeadThatIsNotAnUpgradeIsRefused() throws {
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        // RFC 6455's own example: this key's accept value.
        #expect(WebSocketStream.acceptKey(for: key) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(try WebSocketStream.checkHead("HTTP/1.1 101 OK\r\nUpgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", key: key) == 101)
        #expect(try WebSocketStream.checkHead("HTTP/1.1 404 Not Found\r\nContent-Length: 0", key: key) == 404)
        for bad in ["HTTP/1.1 101 OK\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
                    "HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Extensions: permessage-deflate",
                    "SSH-2.0-OpenSSH_9.2", ""] {
            #expect(throws: WebSocketStream.WebSocketFailure.self) { try WebSocketStream.checkHead(bad, key: key) }
        }
    }

    @Test func onlyWebSocketURLsAreFollowed() {
        #expect(WebSocketStream.Target("ws://127.0.0.1:8/a?b=c")?.transportURL == "http://127.0.0.1:8/")
        #expect(WebSocketStream.Target("wss://[::1]/x")?.transportURL == "https://[::1]/")
        #expect(WebSocketStream.Target("wss://[::1]/x")?.hostField == "[::1]")
        #expect(WebSocketStream.Target("file:///etc/passwd") == nil)
        #expect(WebSocketStream.Target("http://127.0.0.1/") == nil)
    }
}

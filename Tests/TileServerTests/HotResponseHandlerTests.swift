import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
@testable import TileServer

/// ``HotResponseHandler`` on NIO's `EmbeddedChannel`: what it answers, what it passes
/// on, and its idle timeout on the event loop's virtual clock, with no socket and no
/// waiting. The socket tests in `HotResponseTests` keep the end-to-end view.
@Suite struct HotResponseHandlerTests {
    static let target = "/dzi/tile.jpg"

    /// A channel with the handler and one hot answer for `Host: cache` + ``target``.
    static func channel(idleTimeout: Duration = .seconds(30)) throws -> EmbeddedChannel {
        let cache = MemoryCache<HotResponse.Key, HotResponse>(capacity: 1 << 20)
        cache.put(HotResponse.Key(authority: "cache", target: target), HotResponse(
            headers: ["Content-Type": "image/jpeg", "ETag": "\"t\"", "Content-Length": "4"],
            body: ByteBuffer(string: "jpeg"), metrics: ServerMetrics().metrics(route: "dzi_tile", status: 200),
            keyBytes: target.utf8.count + 5))
        let channel = EmbeddedChannel(handler: HotResponseHandler(cache: cache, idleTimeout: idleTimeout))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 80)).wait()
        return channel
    }

    static func request(
        _ target: String = target, host: String = "cache", method: HTTPMethod = .GET, headers: [(String, String)] = []
    ) -> [HTTPServerRequestPart] {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: target)
        head.headers.add(name: "Host", value: host)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        return [.head(head), .end(nil)]
    }

    static func send(_ parts: [HTTPServerRequestPart], to channel: EmbeddedChannel) throws {
        for part in parts { try channel.writeInbound(part) }
    }

    /// What reached the responder: the URIs of the heads passed on.
    static func passedOn(_ channel: EmbeddedChannel) throws -> [String] {
        var uris: [String] = []
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) {
            if case let .head(head) = part { uris.append(head.uri) }
        }
        return uris
    }

    /// The responder's answer to one passed-on request.
    static func respond(on channel: EmbeddedChannel) throws {
        try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        while try channel.readOutbound(as: HTTPServerResponsePart.self) != nil {}
    }

    @Test func aHotRequestIsAnsweredWithTheKeptBytes() throws {
        let channel = try Self.channel()
        try Self.send(Self.request(), to: channel)
        #expect(try Self.passedOn(channel).isEmpty)
        guard case let .head(head) = try channel.readOutbound(as: HTTPServerResponsePart.self),
              case let .body(.byteBuffer(body)) = try channel.readOutbound(as: HTTPServerResponsePart.self),
              case .end = try channel.readOutbound(as: HTTPServerResponsePart.self)
        else { Issue.record("not head, body, end"); return }
        #expect(head.status == .ok)
        #expect(head.headers["ETag"] == ["\"t\""])
        #expect(head.headers["Date"].first?.hasSuffix(" GMT") == true)
        #expect(String(buffer: body) == "jpeg")
    }

    @Test(arguments: [
        ("If-None-Match", "\"t\""), ("Range", "bytes=0-1"), ("If-Modified-Since", "Tue, 24 Nov 2026 00:00:00 GMT"),
        ("Expect", "100-continue"), ("Connection", "close"),
    ])
    func requestsWithRulesOfTheirOwnGoToTheResponder(_ name: String, _ value: String) throws {
        let channel = try Self.channel()
        try Self.send(Self.request(headers: [(name, value)]), to: channel)
        #expect(try Self.passedOn(channel) == [Self.target])
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
    }

    @Test func otherHostsMethodsAndTargetsGoToTheResponder() throws {
        let channel = try Self.channel()
        try Self.send(Self.request(host: "other"), to: channel)
        try Self.respond(on: channel)
        try Self.send(Self.request(method: .HEAD), to: channel)
        try Self.respond(on: channel)
        try Self.send(Self.request("/dzi/other.jpg"), to: channel)
        #expect(try Self.passedOn(channel) == [Self.target, Self.target, "/dzi/other.jpg"])
    }

    @Test func aRequestBehindOneWithTheResponderWaitsItsTurn() throws {
        let channel = try Self.channel()
        try Self.send(Self.request("/slow"), to: channel)
        // Pipelined behind an unanswered request: answering it here would overtake.
        try Self.send(Self.request(), to: channel)
        #expect(try Self.passedOn(channel) == ["/slow", Self.target])
        try Self.respond(on: channel)
        try Self.respond(on: channel)
        // Both answered: the next repeat is the handler's again.
        try Self.send(Self.request(), to: channel)
        #expect(try Self.passedOn(channel).isEmpty)
    }

    @Test func answersInThePipelineKeepTheConnectionFromIdlingOut() throws {
        let channel = try Self.channel(idleTimeout: .milliseconds(800))
        // Busy for twice the timeout, every answer from the handler: stays open.
        for _ in 0..<8 {
            try Self.send(Self.request(), to: channel)
            channel.embeddedEventLoop.advanceTime(by: .milliseconds(200))
            #expect(channel.isActive)
        }
        // Then quiet: closed a whole timeout after the last request (sent 200 ms ago), not before.
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(500))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(100))
        #expect(!channel.isActive)
    }

    @Test func aRequestWithTheResponderIsNotIdle() throws {
        let channel = try Self.channel(idleTimeout: .seconds(1))
        try Self.send(Self.request("/slow"), to: channel)
        // The responder's own time limit bounds it; the idle timeout does not cut it.
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(channel.isActive)
        try Self.respond(on: channel)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(900))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }
}

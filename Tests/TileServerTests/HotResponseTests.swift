import Foundation
import TestSupport
import Testing
@testable import TileServer

/// The pipeline handler that repeats cached answers (``HotResponseHandler``):
/// same bytes and headers as the responder, HTTP rules intact, order kept.
@Suite struct HotResponseTests {
    @Test func aRepeatIsTheSameAnswerWithoutTheResponder() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let tile = "/dzi/\(fixture.eager.hex)_files/11/1_1.jpg"
            let port = server.port
            let answers = try await onOwnThread {
                let connection = try RawHTTPConnection(port: port)
                // An explicit `Connection: keep-alive` (as many clients send) changes nothing.
                return try (0..<4).map { i in try connection.get(tile, headers: i == 3 ? ["Connection": "keep-alive"] : [:]) }
            }
            // The first answer came from the responder (a disk read), the others from
            // the handler: the responder's memory cache was never asked.
            #expect(try await metric(server, "tweetcache_cache_hits_total{store=\"memory\"}") == 0)
            #expect(try await metric(server, "tweetcache_cache_hits_total{store=\"disk\"}") == 1)
            #expect(try await metric(server, "tweetcache_http_requests_total{route=\"dzi_tile\",status=\"200\"}") == 4)
            let first = answers[0]
            #expect(first.status == 200 && !first.body.isEmpty)
            for again in answers.dropFirst() {
                #expect(again.status == 200)
                #expect(again.body == first.body)
                #expect(again.headers.keys.sorted() == first.headers.keys.sorted())
                for (name, value) in first.headers where name != "date" {
                    #expect(again.header(name) == value, "\(name)")
                }
                #expect(again.header("date")?.hasSuffix(" GMT") == true)
            }
            #expect(first.header("server") == "tweetcache")
            #expect(first.header("cache-control") == "public, max-age=31536000, immutable")
        }
    }

    @Test func targetsWithAQueryAreNotKept() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            // No route reads a query, so each spelling would be a new entry a client could mint.
            let tile = "/dzi/\(fixture.eager.hex)_files/11/0_2.jpg?v=1"
            let port = server.port
            let statuses = try await onOwnThread {
                let connection = try RawHTTPConnection(port: port)
                return try (0..<3).map { _ in try connection.get(tile).status }
            }
            #expect(statuses == [200, 200, 200])
            // Every answer came from the responder: one disk read, then its memory cache.
            #expect(try await metric(server, "tweetcache_cache_hits_total{store=\"disk\"}") == 1)
            #expect(try await metric(server, "tweetcache_cache_hits_total{store=\"memory\"}") == 2)
        }
    }

    @Test func conditionalHeadAndClosingRequestsKeepTheirRules() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let tile = "/dzi/\(fixture.eager.hex)_files/11/2_1.jpg"
            let port = server.port
            let (warm, notModified, head, stale) = try await onOwnThread {
                let connection = try RawHTTPConnection(port: port)
                let warm = try connection.get(tile)
                _ = try connection.get(tile)
                let etag = warm.header("etag") ?? ""
                return (warm, try connection.get(tile, headers: ["If-None-Match": etag]),
                        try connection.get(tile, method: "HEAD"),
                        try connection.get(tile, headers: ["If-None-Match": "\"other\""]))
            }
            #expect(notModified.status == 304 && notModified.body.isEmpty)
            #expect(notModified.header("etag") == warm.header("etag"))
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.header("content-length") == String(warm.body.count))
            #expect(stale.status == 200 && stale.body == warm.body)

            let closed = try await onOwnThread {
                let connection = try RawHTTPConnection(port: port, timeout: 5)
                let answer = try connection.get(tile, headers: ["Connection": "close"])
                return (answer, connection.closedByServer())
            }
            #expect(closed.0.status == 200 && closed.0.body == warm.body)
            #expect(closed.1, "Connection: close is honoured for a cached tile too")
        }
    }

    /// Answers the hot handler writes itself are not seen by the response encoder: a
    /// HEAD after one must not make the encoder drop the body of the GET after it.
    @Test func headsAfterAHotAnswerLeaveTheNextBodyWhole() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let tile = "/dzi/\(fixture.eager.hex)_files/11/1_2.jpg"
            let port = server.port
            let answers = try await onOwnThread { () -> [RawHTTPClient.Response] in
                let connection = try RawHTTPConnection(port: port, timeout: 10)
                return [try connection.get(tile), try connection.get(tile), try connection.get(tile, method: "HEAD"),
                        try connection.get(tile, method: "HEAD"), try connection.get(tile, headers: ["If-None-Match": "\"x\""]),
                        try connection.get(tile)]
            }
            #expect(answers.map(\.status) == [200, 200, 200, 200, 200, 200])
            #expect(answers[2].body.isEmpty && answers[3].body.isEmpty)
            for answer in [answers[1], answers[4], answers[5]] { #expect(answer.body == answers[0].body) }
        }
    }

    @Test func pipelinedAnswersKeepTheRequestOrder() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let hot = "/dzi/\(fixture.eager.hex)_files/11/3_1.jpg"
            // A tile of the lazy image at a level nothing else asks for: made now, slowly.
            let cold = "/dzi/\(fixture.lazy.hex)_files/9/0_0.jpg"
            let port = server.port
            let (warm, answers) = try await onOwnThread {
                let connection = try RawHTTPConnection(port: port)
                let warm = try connection.get(hot)
                try connection.send(connection.request("GET", cold) + connection.request("GET", hot)
                    + connection.request("GET", "/healthz") + connection.request("GET", hot))
                return (warm, try (0..<4).map { _ in try connection.readResponse() })
            }
            #expect(answers.map(\.status) == [200, 200, 200, 200])
            #expect(answers[0].header("etag")?.hasSuffix("-9-0-0-jpg\"") == true, "the slow answer comes first")
            #expect(answers[1].body == warm.body)
            #expect(answers[2].text.contains("\"ok\""))
            #expect(answers[3].body == warm.body)
        }
    }

    @Test func answersDependingOnTheHostAreKeptPerHost() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start { $0.allowedHosts = ["a.example", "B.Example."] }) { (server: TileServer) async throws in
            let tile = "/iiif/3/\(fixture.eager.hex)/0,0,512,512/256,256/0/default.jpg"
            let port = server.port
            let links = try await onOwnThread {
                let connection = try RawHTTPConnection(port: port)
                return try ["a.example:1", "b.example:2", "a.example:1", "b.example:2"].map {
                    try connection.get(tile, host: $0).header("link") ?? ""
                }
            }
            #expect(links[0].contains("http://a.example:1/iiif/3/") && links[2] == links[0])
            #expect(links[1].contains("http://b.example:2/iiif/3/") && links[3] == links[1])
        }
    }
}

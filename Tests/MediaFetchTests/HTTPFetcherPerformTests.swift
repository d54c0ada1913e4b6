import Foundation
import HTTPTypes
import Testing
import TestSupport
@testable import MediaFetch

/// `perform` is for API calls: one attempt, request headers sent, every status and
/// body and header handed back as the server sent them.
@Suite struct HTTPFetcherPerformTests {
    private func fetcher() throws -> HTTPFetcher {
        var c = FetchConfiguration()
        c.connectTimeout = .seconds(2)
        c.totalTimeout = .seconds(10)
        return try HTTPFetcher(configuration: c)
    }

    @Test func sendsHeadersAndReturnsBodyAndResponseHeaders() async throws {
        let body = Array(#"{"data":[],"meta":{"result_count":0}}"#.utf8)
        let server = try LoopbackHTTPServer { _ in
            .respond(status: 200, headers: [
                ("Content-Type", "application/json"), ("X-Rate-Limit-Remaining", "449"),
                ("x-rate-limit-reset", "1700000000"), ("X-Dup", "first"), ("x-dup", "second"),
            ], body: body)
        }
        let request = APIRequest(
            url: server.baseURL + "/2/tweets/search/recent?query=%23ucd", headers: [.authorization: "Bearer s3cret"])
        let response = try await fetcher().perform(request).get()
        #expect(response.status == 200)
        #expect(response.body == body)
        #expect(response.header(HTTPField.Name("x-rate-limit-remaining")!) == "449")
        #expect(response.header(HTTPField.Name("X-Rate-Limit-Reset")!) == "1700000000")
        // Every field as sent, repeats in order (RFC 9110 lets a reader join them).
        #expect(response.head.headerFields[values: HTTPField.Name("x-dup")!] == ["first", "second"])
        #expect(response.header(.contentType) == "application/json")
        let seen = try #require(server.requests.first)
        #expect(seen.headers["authorization"] == "Bearer s3cret")
        #expect(seen.headers["accept"] == "application/json")
        #expect(seen.target == "/2/tweets/search/recent?query=%23ucd")
    }

    @Test func errorStatusesAreResponsesWithTheirBodiesAndAreNotRetried() async throws {
        let server = try LoopbackHTTPServer { req in
            switch req.path {
            case "/401": .respond(status: 401, body: Array(#"{"title":"Unauthorized"}"#.utf8))
            case "/429": .respond(status: 429, headers: [("x-rate-limit-reset", "1700000123")], body: Array("slow down".utf8))
            default: .respond(status: 503, body: Array("busy".utf8))
            }
        }
        let f = try fetcher()
        let unauthorized = try await f.perform(APIRequest(url: server.baseURL + "/401")).get()
        #expect(unauthorized.status == 401)
        #expect(String(decoding: unauthorized.body, as: UTF8.self) == #"{"title":"Unauthorized"}"#)
        let limited = try await f.perform(APIRequest(url: server.baseURL + "/429")).get()
        #expect(limited.status == 429)
        #expect(limited.header(HTTPField.Name("x-rate-limit-reset")!) == "1700000123")
        let busy = try await f.perform(APIRequest(url: server.baseURL + "/503")).get()
        #expect(busy.status == 503)
        #expect(busy.body == Array("busy".utf8))
        // One attempt each: retrying is the caller's decision.
        #expect(server.requestCount(path: "/503") == 1)
        #expect(server.requestCount(path: "/429") == 1)
    }

    @Test func anEmptyBodyIsAnAnswerNotAFailure() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 204) }
        let response = try await fetcher().perform(APIRequest(url: server.baseURL + "/x")).get()
        #expect(response.status == 204)
        #expect(response.body.isEmpty)
    }

    @Test func followsRedirectsAndKeepsOnlyTheFinalHeaders() async throws {
        let server = try LoopbackHTTPServer { req in
            req.path == "/old"
                ? .respond(status: 302, headers: [("Location", "/new"), ("X-Hop", "1")])
                : .respond(status: 200, headers: [("X-Final", "yes")], body: Array("{}".utf8))
        }
        let response = try await fetcher().perform(APIRequest(url: server.baseURL + "/old")).get()
        #expect(response.status == 200)
        #expect(response.header(HTTPField.Name("x-final")!) == "yes")
        #expect(response.header(HTTPField.Name("x-hop")!) == nil)
        #expect(response.effectiveURL.hasSuffix("/new"))
    }

    @Test func refusesABodyOverTheLimit() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: [UInt8](repeating: 0x20, count: 50_000)) }
        let f = try fetcher()
        let result = await f.perform(APIRequest(url: server.baseURL + "/big", maxBytes: 10_000))
        #expect(throws: FetchFailure.tooLarge(limit: 10_000)) { try result.get() }
    }

    @Test func aHeaderCannotSmuggleALineAndAnOverlongOneIsRefusedUnquoted() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: Array("{}".utf8)) }
        let f = try fetcher()
        // The types themselves: a name must be a token, and a value's line breaks become spaces.
        #expect(HTTPField.Name("Bad Name") == nil)
        _ = try await f.perform(APIRequest(url: server.baseURL + "/x", headers: [.authorization: "Bearer abc\r\nX-Evil: 1"])).get()
        let seen = try #require(server.requests.first)
        #expect(seen.headers["x-evil"] == nil, "a line break smuggled a header")
        #expect(seen.headers["authorization"]?.contains("\n") == false)
        let overlong = await f.perform(APIRequest(url: server.baseURL + "/x",
                                                  headers: [.authorization: "Bearer " + String(repeating: "s", count: 20_000)]))
        guard case let .failure(failure) = overlong else {
            Issue.record("a 20 kB header was sent")
            return
        }
        #expect(failure.description.contains("Authorization"))
        #expect(!failure.description.contains("sss"))
        #expect(server.requests.count == 1)
    }

    @Test func aURLTheTypesWouldRewriteIsRefusedNotSentAltered() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: Array("{}".utf8)) }
        let f = try fetcher()
        let exact = APIRequest(url: server.baseURL + "/a%20b?q=%23x&r=1")
        #expect(exact.url == server.baseURL + "/a%20b?q=%23x&r=1", "scheme, authority and path put back byte for byte")
        let broken = await f.perform(APIRequest(url: server.baseURL + "/a\r\nHost: evil"))
        #expect((try? broken.get()) == nil)
        #expect(server.requests.isEmpty)
    }

    @Test func aRequestsDescriptionAndDumpNeverShowHeaderValues() {
        let request = APIRequest(url: "https://api.x.com/2/tweets", headers: [.authorization: "Bearer topsecret"])
        #expect(!request.description.contains("topsecret"))
        #expect(request.description.contains("Authorization"))
        var dumped = ""
        dump(request, to: &dumped)
        #expect(!dumped.contains("topsecret"))
        #expect(!"\(request)".contains("topsecret"))
    }

    @Test func reportsAConnectionFailureAsAFailure() async throws {
        let closed = try ClosedPort()
        let url = closed.baseURL + "/x"
        let f = try fetcher()
        let result = await f.perform(APIRequest(url: url))
        guard case let .failure(failure) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(failure.code == "connection_failed" || failure.code == "connection_interrupted")
    }

    @Test func refusesNonHTTPURLs() async throws {
        let f = try fetcher()
        let result = await f.perform(APIRequest(url: "file:///etc/passwd"))
        #expect(throws: FetchFailure.unsupportedScheme("file")) { try result.get() }
    }
}

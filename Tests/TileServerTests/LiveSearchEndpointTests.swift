import Foundation
import LiveSearch
import MediaFetch
import Pipeline
import Testing
import TestSupport
@testable import TileServer

/// The page's live search (`/api/search`) against the loopback fake X API: the same
/// client as `tweetcache search`, on a virtual clock, so a rate-limit wait is instant.
@Suite struct LiveSearchEndpointTests {
    /// A server over an empty cache whose searches go to `fake`.
    static func server(_ fake: FakeSearchAPI, clock: VirtualClock, count: Int = 40) async throws -> (TileServer, URL) {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("tc-live-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        var search = SearchOptions(cacheRoot: cache)
        search.baseURL = fake.baseURL
        search.count = count
        search.backoffBase = .milliseconds(20)
        search.backoffCap = .milliseconds(100)
        search.clock = clock
        var fetch = FetchConfiguration()
        fetch.mirrors = try MirrorMap(specs: [fake.mirrorSpec])
        var configuration = TileServerConfiguration(cacheRoot: cache)
        configuration.port = 0
        configuration.buildsPacks = false
        configuration.liveSearch = LiveSearchConfiguration(
            token: try BearerToken(fake.configuration.token, source: .environment("TEST")),
            search: search, collector: PipelineSearchCollector(options: PipelineOptions(cacheRoot: cache, fetch: fetch)),
            cacheRoot: cache)
        return (try await TileServer.start(configuration, executor: ServerThreads.shared), cache)
    }

    static func fake(faults: [Int: FakeSearchAPI.Fault] = [:]) throws -> (FakeSearchAPI, VirtualClock) {
        let clock = VirtualClock()
        var config = FakeSearchAPI.Configuration()
        config.clock = clock
        return (try FakeSearchAPI(config, faults: faults), clock)
    }

    func json(_ response: RawHTTPClient.Response) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func aSearchFromThePageWaitsOutA429SavesItsPagesAndCachesItsMedia() async throws {
        let (fake, clock) = try Self.fake(faults: [1: .tooManyRequests(resetIn: 60)])
        let (server, cache) = try await Self.server(fake, clock: clock)
        defer {
            try? FileManager.default.removeItem(at: cache)
        }
        try await withServer(server) { (server: TileServer) async throws in
            let idle = try json(try await fetch(server, "/api/search"))
            #expect(idle["available"] as? Bool == true && idle["search"] == nil)

            let started = try await fetch(server, "/api/search", method: "POST",
                                          headers: ["Content-Type": "application/json"], body: Array(##"{"query":"#ucd"}"##.utf8))
            #expect(started.status == 202)
            let accepted = try json(started)
            #expect((accepted["search"] as? [String: Any])?["state"] as? String == "searching")
            var version = accepted["version"] as? Int ?? 0
            var states: [String] = []
            var last: [String: Any] = [:]
            // Each long poll answers when something changed; no timer.
            while true {
                let feed = try json(try await fetch(server, "/api/search?after=\(version)"))
                version = try #require(feed["version"] as? Int)
                last = try #require(feed["search"] as? [String: Any])
                let state = try #require(last["state"] as? String)
                if states.last != state { states.append(state) }
                if state == "done" || state == "failed" { break }
            }
            #expect(states.last == "done", "\(states): \(last)")
            #expect(last["waits"] as? Int == 1, "the 429's wait is counted for the page")
            #expect(last["tweets"] as? Int == 40 && (last["pages"] as? Int ?? 0) >= 1)
            #expect(last["fetch_failed"] as? Int == 0 && (last["fetch_total"] as? Int ?? 0) > 40)
            // The 429 was honoured: the client slept until the reset, on the virtual clock.
            #expect(fake.tooManyRequestsServed == 1 && clock.totalSlept >= .seconds(60))
            // Pages saved as served, the search in the history, the tweets in the list.
            let saved = try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("results").path)
            #expect(!saved.isEmpty)
            #expect(try SearchHistory(cacheRoot: cache).entries().first?.query == "#ucd")
            let tweets = try json(try await fetch(server, "/api/tweets?tag=ucd"))
            #expect(tweets["total"] as? Int == 40)
            let history = try json(try await fetch(server, "/api/history"))
            #expect(history["liveSearch"] as? Bool == true)
        }
    }

    /// Runs one search from the page to its end: its last status.
    func searchToTheEnd(_ server: TileServer, _ query: String) async throws -> [String: Any] {
        let started = try await fetch(server, "/api/search", method: "POST",
                                      headers: ["Content-Type": "application/json"], body: Array(#"{"query":"\#(query)"}"#.utf8))
        #expect(started.status == 202)
        var version = try json(started)["version"] as? Int ?? 0
        while true {
            let feed = try json(try await fetch(server, "/api/search?after=\(version)"))
            version = try #require(feed["version"] as? Int)
            let last = try #require(feed["search"] as? [String: Any])
            if ["done", "failed"].contains(last["state"] as? String) { return last }
        }
    }

    @Test func aSearchClickedAgainAsksOnlyForWhatIsNew() async throws {
        let (fake, clock) = try Self.fake()
        let (server, cache) = try await Self.server(fake, clock: clock)
        defer { try? FileManager.default.removeItem(at: cache) }
        try await withServer(server) { (server: TileServer) async throws in
            let first = try await searchToTheEnd(server, "#ucd")
            #expect(first["state"] as? String == "done" && first["tweets"] as? Int == 40)
            let before = fake.apiRequests.count
            let again = try await searchToTheEnd(server, "#ucd")
            #expect(again["tweets"] as? Int == 0, "\(again)")
            let asked = fake.apiRequests.dropFirst(before).map(FakeSearchAPI.parameters)
            #expect(asked.count == 1 && asked.first?["since_id"] == fake.tweetIDs[0], "\(asked)")
        }
    }

    @Test func onlyThePageItselfStartsASearch() async throws {
        let (fake, clock) = try Self.fake()
        let (server, cache) = try await Self.server(fake, clock: clock)
        defer {
            try? FileManager.default.removeItem(at: cache)
        }
        try await withServer(server) { (server: TileServer) async throws in
            let body = Array(##"{"query":"#ucd"}"##.utf8)
            // A form post (no preflight) and another site's page are refused; nothing was asked of the API.
            #expect(try await fetch(server, "/api/search", method: "POST",
                                    headers: ["Content-Type": "application/x-www-form-urlencoded"], body: body).status == 415)
            #expect(try await fetch(server, "/api/search", method: "POST",
                                    headers: ["Content-Type": "application/json", "Origin": "https://evil.example"], body: body).status == 403)
            #expect(try await fetch(server, "/api/search", method: "POST",
                                    headers: ["Content-Type": "application/json"], body: Array(#"{"q":1}"#.utf8)).status == 400)
            #expect(try await fetch(server, "/api/search", method: "POST",
                                    headers: ["Content-Type": "application/json"], body: Array(#"{"query":"  "}"#.utf8)).status == 400)
            #expect(try await fetch(server, "/api/tweets", method: "POST",
                                    headers: ["Content-Type": "application/json"], body: body).status == 405)
            #expect(fake.apiRequests.isEmpty)
        }
    }

    @Test func withoutATokenThePageIsToldSo() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            #expect(try json(try await fetch(server, "/api/search"))["available"] as? Bool == false)
            let refused = try await fetch(server, "/api/search", method: "POST",
                                          headers: ["Content-Type": "application/json"], body: Array(##"{"query":"#zoom"}"##.utf8))
            #expect(refused.status == 404 && refused.text.contains("needs a token"))
        }
    }
}

/// A failed live search tells the page a fixed kind, never the upstream's body, its
/// host or a local path; the server's log keeps the detail.
@Suite struct LiveSearchErrorPageTests {
    @Test func aRefusedSearchSaysSoAndNothingInternal() async throws {
        let (fake, clock) = try LiveSearchEndpointTests.fake(faults: [1: .forbidden])
        let (server, cache) = try await LiveSearchEndpointTests.server(fake, clock: clock)
        defer { try? FileManager.default.removeItem(at: cache) }
        try await withServer(server) { (server: TileServer) async throws in
            let last = try await LiveSearchEndpointTests().searchToTheEnd(server, "#ucd")
            #expect(last["state"] as? String == "failed")
            let message = try #require(last["message"] as? String)
            #expect(message == "the search service refused the server's token (HTTP 403)", "\(message)")
            let port = fake.baseURL.split(separator: ":").last.map(String.init) ?? "-"
            for leak in ["approved developer account", "127.0.0.1", port, cache.path, "TEST", "Bearer"] {
                #expect(!message.contains(leak), "\(leak) in \(message)")
            }
        }
    }

    @Test func everyKindReadsWithoutDetail() {
        let secret = "/srv/secret/token.txt at http://10.0.0.5:9000 said {\"body\":1}"
        let errors: [LiveSearchError] = [
            .unreadableTokenFile(path: secret, reason: secret), .rejected(service: secret, status: 429, detail: secret),
            .rejected(service: secret, status: 400, detail: secret), .serverError(service: secret, status: 502, attempts: 3, detail: secret),
            .network(service: secret, secret, attempts: 3), .cannotSave(path: secret, reason: secret), .setup(secret),
            .service(network: secret, message: secret), .invalidBaseURL(secret),
        ]
        for error in errors {
            #expect(!error.pageMessage.contains("secret") && !error.pageMessage.contains("10.0.0.5"), "\(error.pageMessage)")
        }
        #expect(LiveSearchError.rejected(service: "x", status: 429, detail: nil).pageMessage.contains("rate limited"))
        #expect(LiveSearchError.network(service: "x", "y", attempts: 1).pageMessage == "the search service could not be reached")
    }
}

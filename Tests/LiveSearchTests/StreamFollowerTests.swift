import Foundation
@testable import LiveSearch
import MediaFetch
import StreamTestSupport
import Synchronization
import Testing
import TestSupport

/// Events a follow delivered, and a way to wait for some (bounded: a follow that
/// never delivers fails its test instead of hanging it).
final class StreamLog: Sendable {
    private let state = Mutex<(events: [StreamEvent], notices: [StreamFollower.Notice])>(([], []))

    func add(_ event: StreamEvent) { state.withLock { $0.events.append(event) } }
    func add(_ notice: StreamFollower.Notice) { state.withLock { $0.notices.append(notice) } }
    var events: [StreamEvent] { state.withLock { $0.events } }
    var notices: [StreamFollower.Notice] { state.withLock { $0.notices } }
    var postIDs: [String] { events.compactMap { if case let .post(id, _) = $0 { id } else { nil } } }

    func wait(_ what: String, until condition: (StreamLog) -> Bool) async throws {
        for _ in 0..<1000 {
            if condition(self) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("timed out waiting for \(what): \(events) \(notices)")
        throw CancellationError()
    }
}

/// Waits (bounded) until `count` sleeps are waiting on `clock`: the code is asleep.
func waitForSleepers(_ clock: ManualClock, _ count: Int) async throws {
    for _ in 0..<1000 {
        if clock.sleepers >= count { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("nothing went to sleep on the clock")
    throw CancellationError()
}

func streamSession(clock: any WallClock) throws -> StreamSession {
    var configuration = FetchConfiguration()
    configuration.connectTimeout = .seconds(5)
    return StreamSession(fetcher: try HTTPFetcher(configuration: configuration), clock: clock)
}

/// Follows `stream` in a task of its own until the test cancels it.
func follow(_ stream: any PostStream, session: StreamSession, cursor: String? = nil, log: StreamLog,
            options: StreamFollower.Options = .init()) -> Task<StreamEnd, Never> {
    Task {
        await StreamFollower(options: options).run(stream, session: session, cursor: cursor,
                                                   deliver: { log.add($0) }, notice: { log.add($0) })
    }
}

@Suite struct XFilteredStreamTests {
    static let ruleList = ##"{"data":[{"id":"1","value":"#old -is:retweet","tag":"tweetcache:#old"},{"id":"2","value":"cats","tag":"someone else"},{"id":"3","value":"#ucd -is:retweet","tag":"tweetcache:#ucd"}]}"##

    @Test func rulesAreReconciledAndPostsOfOurRulesDelivered() async throws {
        let feeds = Mutex<[StreamFeed]>([])
        let server = try LoopbackHTTPServer { request in
            switch (request.method, request.path) {
            case ("GET", "/2/tweets/search/stream/rules"):
                return .respond(status: 200, body: Array(Self.ruleList.utf8))
            case ("POST", "/2/tweets/search/stream/rules"):
                return .respond(status: 200, body: Array(##"{"meta":{"summary":{}}}"##.utf8))
            case ("GET", "/2/tweets/search/stream"):
                let feed = StreamFeed()
                feeds.withLock { $0.append(feed) }
                return .stream(status: 200, headers: [("Content-Type", "application/json")], feed: feed)
            default:
                return .respond(status: 404)
            }
        }
        defer { server.stop() }
        let token = try BearerToken("secret-token", source: .environment("T"))
        let stream = try XFilteredStream(queries: [try SearchQuery("#ucd"), try SearchQuery("@lab2")], token: token,
                                         baseURL: server.baseURL)
        let clock = ManualClock()
        let log = StreamLog()
        let task = follow(stream, session: try streamSession(clock: clock), log: log)
        defer { task.cancel() }
        try await log.wait("a connection") { _ in feeds.withLock { $0.count } == 1 }
        let feed = feeds.withLock { $0[0] }
        feed.push("\r\n")
        feed.push(##"{"data":{"id":"101","text":"#ucd"},"includes":{},"matching_rules":[{"id":"3","tag":"tweetcache:#ucd"}]}"## + "\r\n")
        feed.push(##"{"data":{"id":"102","text":"cats"},"matching_rules":[{"id":"2","tag":"someone else"}]}"## + "\r\n{not json\r\n")
        feed.push(##"{"data":{"id":"103","text":"from lab2"},"matching_rules":[{"id":"9","tag":"tweetcache:@lab2"}]}"## + "\r\n")
        try await log.wait("two posts") { $0.postIDs == ["101", "103"] }
        #expect(log.events.contains { if case .problem = $0 { true } else { false } })

        // The rules: ours no longer watched deleted, the missing ones added, others' kept.
        let posts = server.requests.filter { $0.method == "POST" }
        #expect(posts.count == 2)
        let deleted = try #require(try JSONSerialization.jsonObject(with: Data(posts[0].body)) as? [String: Any])
        #expect((deleted["delete"] as? [String: Any])?["ids"] as? [String] == ["1"])
        let added = try #require(try JSONSerialization.jsonObject(with: Data(posts[1].body)) as? [String: Any])
        let rules = try #require(added["add"] as? [[String: String]])
        #expect(rules == [["tag": "tweetcache:@lab2", "value": "from:lab2 -is:retweet"]])
        #expect(server.requests.allSatisfy { $0.headers["authorization"] == "Bearer secret-token" })
        let streamRequest = try #require(server.requests.first { $0.path == "/2/tweets/search/stream" })
        #expect(streamRequest.target.contains("expansions=attachments.media_keys"))

        // Silence past the idle limit is a dead connection, though the system's date was set
        // back an hour meanwhile: a second one follows, after a backoff.
        try await waitForSleepers(clock, 1)
        clock.stepDate(by: .seconds(-3600))
        clock.advance(by: .seconds(31))
        try await log.wait("the stall") { $0.notices.contains(.ended(.stalled, retryIn: .seconds(1))) }
        try await waitForSleepers(clock, 1)
        clock.advance(by: .seconds(1))
        try await log.wait("a reconnection") { _ in feeds.withLock { $0.count } == 2 }
        #expect(server.requests.filter { $0.path == "/2/tweets/search/stream/rules" && $0.method == "GET" }.count == 1,
                "rules are reconciled once per follow, not per connection")
        // The server ends the response (a deploy): a close, and a connection again.
        feeds.withLock { $0[1] }.close()
        try await log.wait("the close") { $0.notices.contains { if case .ended(.closed, _) = $0 { true } else { false } } }
        try await waitForSleepers(clock, 1)
        // The second connection delivered nothing: the wait doubled.
        #expect(log.notices.last == .ended(.closed, retryIn: .seconds(2)))
        clock.advance(by: .seconds(2))
        try await log.wait("a third connection") { _ in feeds.withLock { $0.count } == 3 }
        task.cancel()
        #expect(await task.value == .cancelled)
    }

    @Test func aRefusedTokenEndsTheFollowAndSaysWhy() async throws {
        let server = try LoopbackHTTPServer { _ in
            .respond(status: 401, body: Array(##"{"title":"Unauthorized","detail":"Unauthorized","status":401}"##.utf8))
        }
        defer { server.stop() }
        let stream = try XFilteredStream(queries: [try SearchQuery("#ucd")],
                                         token: try BearerToken("bad", source: .environment("T")), baseURL: server.baseURL)
        let log = StreamLog()
        let ended = await follow(stream, session: try streamSession(clock: ManualClock()), log: log).value
        guard case let .refused(error) = ended else {
            Issue.record("\(ended)")
            return
        }
        #expect(error.description.contains("401") || error.description.lowercased().contains("token"), "\(error)")
        #expect(!error.description.contains("bad"))
    }

    @Test func aRuleXRefusesEndsTheFollow() async throws {
        let server = try LoopbackHTTPServer { request in
            request.method == "GET"
                ? .respond(status: 200, body: Array(##"{"meta":{"result_count":0}}"##.utf8))
                : .respond(status: 201, body: Array(##"{"meta":{"summary":{"created":0,"not_created":1}},"errors":[{"value":"nosuch:op","details":["Reference to invalid operator 'nosuch'"],"title":"UnprocessableEntity"}]}"##.utf8))
        }
        defer { server.stop() }
        let stream = try XFilteredStream(queries: [try SearchQuery("nosuch:op")],
                                         token: try BearerToken("t", source: .environment("T")), baseURL: server.baseURL)
        let ended = await follow(stream, session: try streamSession(clock: ManualClock()), log: StreamLog()).value
        guard case let .refused(error) = ended else {
            Issue.record("\(ended)")
            return
        }
        #expect(error.description.contains("a stream rule was refused"), "\(error)")
        #expect(error.description.contains("invalid operator"), "\(error)")
        #expect(server.requests.filter { $0.path == "/2/tweets/search/stream" }.isEmpty, "no connection for a rule that cannot work")
    }

    @Test func aStreamThatKeepsFailingIsRetriedWithGrowingWaits() async throws {
        let server = try LoopbackHTTPServer { request in
            request.path.hasSuffix("/rules") ? .respond(status: 200, body: Array(##"{"data":[]}"##.utf8)) : .respond(status: 503)
        }
        defer { server.stop() }
        let stream = try XFilteredStream(queries: [try SearchQuery("#ucd")],
                                         token: try BearerToken("t", source: .environment("T")), baseURL: server.baseURL)
        let log = StreamLog()
        let clock = ManualClock()
        let task = follow(stream, session: try streamSession(clock: clock), log: log)
        for failure in 1...5 {
            try await log.wait("failure \(failure)") { log in
                log.notices.filter { if case .ended = $0 { true } else { false } }.count == failure
            }
            try await waitForSleepers(clock, 1)
            clock.advance(by: .seconds(3600))
        }
        task.cancel()
        _ = await task.value
        let ends = log.notices.compactMap { if case let .ended(end, wait) = $0 { (end, wait) } else { nil } }
        #expect(ends.prefix(5).map(\.1) == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16)])
        #expect(ends.prefix(5).allSatisfy { $0.0 == .failed("X filtered stream answered 503") }, "\(ends)")
    }
}

@Suite struct MastodonStreamTests {
    @Test func eventsFromTheStreamingServerTheInstanceNames() async throws {
        let feed = StreamFeed()
        let streaming = try LoopbackHTTPServer { request in
            request.path == "/api/v1/streaming/hashtag" ? .stream(status: 200, headers: [("Content-Type", "text/event-stream")], feed: feed)
                : .respond(status: 404)
        }
        defer { streaming.stop() }
        let instance = try LoopbackHTTPServer { request in
            request.path == "/api/v2/instance"
                ? .respond(status: 200, body: Array(##"{"configuration":{"urls":{"streaming":"ws://127.0.0.1:\##(streaming.port)"}}}"##.utf8))
                : .respond(status: 404)
        }
        defer { instance.stop() }
        let stream = try MastodonStream(query: try SearchQuery("#ucd"), token: try BearerToken("mtoken", source: .environment("M")),
                                        instance: instance.baseURL)
        let log = StreamLog()
        let clock = ManualClock()
        let task = follow(stream, session: try streamSession(clock: clock), log: log)
        defer { task.cancel() }
        try await log.wait("the connection") { _ in streaming.requests.count == 1 }
        feed.push(":thump\n\nevent: update\ndata: {\"id\":\"11\",\"content\":\"<p>#ucd</p>\"}\n\n")
        feed.push("event: status.update\ndata: {\"id\":\"11\",\"content\":\"<p>#ucd edited</p>\"}\n\nevent: delete\ndata: 12\n\n")
        feed.push("event: update\ndata: [1,2]\n\nevent: notification\ndata: {}\n\nevent: delete\ndata: ../../x\n\n")
        try await log.wait("the events") { $0.events.count >= 5 }
        #expect(log.postIDs == ["11", "11"])
        #expect(log.events.contains(.deleted(id: "12")))
        #expect(log.events.filter { if case .problem = $0 { true } else { false } }.count == 2)
        let request = try #require(streaming.requests.first)
        #expect(request.target == "/api/v1/streaming/hashtag?tag=ucd")
        #expect(request.headers["authorization"] == "Bearer mtoken")
        #expect(request.headers["accept"] == "text/event-stream")
        // A stream that goes quiet (no `:thump` either) is dead: reconnected.
        try await waitForSleepers(clock, 1)
        clock.advance(by: .seconds(31))
        try await log.wait("the stall") { $0.notices.contains { if case .ended(.stalled, _) = $0 { true } else { false } } }
        try await waitForSleepers(clock, 1)
        clock.advance(by: .seconds(1))
        try await log.wait("the reconnection") { _ in streaming.requests.count == 2 }
    }

    @Test func onlyHashtagsHaveAStream() throws {
        #expect(throws: LiveSearchError.self) {
            try MastodonStream(query: try SearchQuery("@someone@example.social"), token: nil, instance: "https://127.0.0.1:9")
        }
    }
}

@Suite struct JetstreamTests {
    @Test func matchedPostsDeletesAndAResumeFromTheCursor() async throws {
        let jetstream = try await FakeJetstream.start()
        let appView = try LoopbackHTTPServer { request in
            request.path == "/xrpc/com.atproto.identity.resolveHandle" && request.target.contains("handle=lab.test")
                ? .respond(status: 200, body: Array(##"{"did":"did:plc:lab"}"##.utf8)) : .respond(status: 400)
        }
        defer { appView.stop() }
        let stream = try Jetstream(queries: [try SearchQuery("#ucd"), try SearchQuery("@lab.test")], url: jetstream.url,
                                   appView: appView.baseURL)
        let log = StreamLog()
        let clock = ManualClock()
        let task = follow(stream, session: try streamSession(clock: clock), log: log)
        try await log.wait("the connection") { _ in jetstream.openConnections == 1 }
        jetstream.send(FakeJetstream.post(did: "did:plc:x", rkey: "a1", text: "#ucd", tags: ["UCD"]))
        jetstream.send(FakeJetstream.post(did: "did:plc:x", rkey: "a2", text: "nothing"))
        jetstream.sendRaw("garbage")
        jetstream.send(FakeJetstream.post(did: "did:plc:lab", rkey: "a3", text: "from the lab"))
        let last = jetstream.send(FakeJetstream.delete(did: "did:plc:x", rkey: "a1"))
        try await log.wait("the events") { $0.events.contains(.cursor(String(last))) }
        #expect(log.postIDs == ["at://did:plc:x/app.bsky.feed.post/a1", "at://did:plc:lab/app.bsky.feed.post/a3"])
        #expect(log.events.contains(.deleted(id: "at://did:plc:x/app.bsky.feed.post/a1")))
        #expect(jetstream.subscriptions.first?.contains("wantedCollections=app.bsky.feed.post") == true)
        #expect(jetstream.subscriptions.first?.contains("cursor=") == false)

        // The service restarts: the follow reconnects from the last cursor, rewound a
        // few seconds (delivery is at least once), and sees what it missed.
        jetstream.dropConnections()
        try await log.wait("the close") { $0.notices.contains { if case .ended(.closed, _) = $0 { true } else { false } } }
        let missed = jetstream.send(FakeJetstream.post(did: "did:plc:y", rkey: "b1", text: "#ucd again", tags: ["ucd"]))
        try await waitForSleepers(clock, 1)
        clock.advance(by: .seconds(1))
        try await log.wait("the missed post") { $0.events.contains(.cursor(String(missed))) }
        let resumed = try #require(jetstream.subscriptions.last)
        #expect(resumed.contains("cursor=\(last - Jetstream.rewind)"), "\(resumed)")
        #expect(log.postIDs.last == "at://did:plc:y/app.bsky.feed.post/b1")
        task.cancel()
        _ = await task.value
        await jetstream.stop()
    }

    /// A cursor older than anything the service keeps (a watch stopped for days): the
    /// service replays from its oldest event, and the follow goes on from there.
    @Test func aStaleCursorResumesFromWhatTheServiceStillHas() async throws {
        let jetstream = try await FakeJetstream.start(keep: 4)
        var times: [Int64] = []
        for n in 1...10 {
            times.append(jetstream.send(FakeJetstream.post(did: "did:plc:x", rkey: "s\(n)", text: "#ucd \(n)", tags: ["ucd"])))
        }
        let stream = try Jetstream(queries: [try SearchQuery("#ucd")], url: jetstream.url, appView: "http://127.0.0.1:9")
        let log = StreamLog()
        let task = follow(stream, session: try streamSession(clock: ManualClock()), cursor: String(times[0] + Jetstream.rewind), log: log)
        try await log.wait("the backlog") { $0.events.contains(.cursor(String(times[9]))) }
        // What the service kept (the newest two to four); the older ones are gone for good.
        #expect(log.postIDs.last == "at://did:plc:x/app.bsky.feed.post/s10")
        #expect((2...4).contains(log.postIDs.count), "\(log.postIDs)")
        task.cancel()
        _ = await task.value
        await jetstream.stop()
    }

    @Test func authorsOnlyAskForTheirDIDs() async throws {
        let appView = try LoopbackHTTPServer { request in
            request.target.contains("handle=a.test") ? .respond(status: 200, body: Array(##"{"did":"did:plc:a"}"##.utf8))
                : .respond(status: 400, body: Array(##"{"error":"InvalidRequest","message":"Unable to resolve handle"}"##.utf8))
        }
        defer { appView.stop() }
        var stream = try Jetstream(queries: [try SearchQuery("@a.test")], url: "ws://127.0.0.1:9/subscribe", appView: appView.baseURL)
        try await stream.prepare(try streamSession(clock: VirtualClock()))
        #expect(stream.subscribeURL(cursor: "9000000").hasSuffix("wantedDids=did%3Aplc%3Aa&cursor=4000000"))
        var unknown = try Jetstream(queries: [try SearchQuery("@nobody.test")], url: nil, appView: appView.baseURL)
        await #expect(throws: LiveSearchError.noSuchAccount("nobody.test")) { try await unknown.prepare(try streamSession(clock: VirtualClock())) }
    }
}

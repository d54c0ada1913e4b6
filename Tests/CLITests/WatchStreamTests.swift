import Catalog
import Foundation
import StreamTestSupport
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `tweetcache watch --stream` end to end, against a loopback Jetstream and image
/// origin: batches cached as they fill, deletions forgotten, the open batch cached
/// on SIGTERM, and after a kill -9 nothing lost (the next watch caches what the last
/// one had received, and resumes from the saved cursor).
@Suite struct WatchStreamTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    static let did = "did:plc:watcher"

    func uri(_ rkey: String) -> String { "at://\(Self.did)/app.bsky.feed.post/\(rkey)" }

    func known(_ cache: URL, _ rkeys: [String]) throws -> Set<String> {
        let catalog = try PostCatalog.open(cacheRoot: cache).catalog
        return Set(try catalog.known(Set(rkeys.map { PostIdentity(network: .bluesky, id: uri($0)) })).map(\.id))
    }

    /// Waits (bounded) until the watch's WebSocket is open: Jetstream sends only what
    /// happens after (without a cursor).
    func connected(_ jetstream: FakeJetstream, subscriptionsBefore: Int) async throws {
        for _ in 0..<1500 {
            if jetstream.subscriptions.count > subscriptionsBefore, jetstream.openConnections == 1 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the watch never connected")
        throw CancellationError()
    }

    /// Waits (bounded) until a batch file holds `text`.
    func waitForSpool(_ cache: URL, holding text: String) async throws {
        let folder = cache.appendingPathComponent("results/streams")
        for _ in 0..<1000 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names where name.contains(".jsonl") {
                if let body = try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8), body.contains(text) { return }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("no batch file holds \(text)")
        throw CancellationError()
    }

    @Test func batchesDeletionsASignalAndAKill() async throws {
        let jetstream = try await FakeJetstream.start()
        let origin = try LoopbackHTTPServer { request in
            request.path.hasPrefix("/img/feed_fullsize/")
                ? .respond(status: 200, headers: [("Content-Type", "image/png")],
                           body: TinyPNG.make(width: 8, height: 8, tag: request.path))
                : .respond(status: 404)
        }
        defer { origin.stop() }
        let dir = try ScratchDirectory.make("tc-watch-stream")
        let cache = dir.appendingPathComponent("Cache")
        let arguments = ["watch", "--stream", "--network", "bluesky", "#ucd", "--jetstream", jetstream.url,
                         "--batch-posts", "2", "--batch-interval", "10m", "--cache", cache.path,
                         "--mirror", "cdn.bsky.app=\(origin.baseURL)", "--tiles", "none", "--thumb-sizes", "", "--no-pdq"]

        let first = try ServingProcess.start(bin, arguments)
        defer { first.kill() }
        try await connected(jetstream, subscriptionsBefore: 0)
        jetstream.send(FakeJetstream.post(did: Self.did, rkey: "p1", text: "#ucd one", tags: ["ucd"], imageCIDs: ["bafkreione"]))
        jetstream.send(FakeJetstream.post(did: Self.did, rkey: "nope", text: "not watched"))
        jetstream.send(FakeJetstream.post(did: Self.did, rkey: "p2", text: "#ucd two", tags: ["ucd"], imageCIDs: ["bafkreitwo"]))
        // Two posts fill a batch: one run caches it.
        _ = try await first.errors(untilLine: "watch: cached a batch of 2 posts")
        #expect(try known(cache, ["p1", "p2", "nope"]) == [uri("p1"), uri("p2")])
        #expect(origin.requests.filter { $0.path.hasPrefix("/img/") }.count == 2)

        // A deletion and a third post wait in the open batch; SIGTERM caches it.
        jetstream.send(FakeJetstream.delete(did: Self.did, rkey: "p1"))
        let third = jetstream.send(FakeJetstream.post(did: Self.did, rkey: "p3", text: "#ucd three", tags: ["ucd"]))
        try await waitForSpool(cache, holding: "/p3")
        #expect(try await first.stop() == 0)
        let said = try String(contentsOf: first.errors, encoding: .utf8)
        #expect(said.contains("watch: forgot 1 post deleted on the network"), "\(said)")
        #expect(try known(cache, ["p1", "p2", "p3"]) == [uri("p2"), uri("p3")])
        let tombstones = try String(contentsOf: cache.appendingPathComponent("tombstones.jsonl"), encoding: .utf8)
        #expect(tombstones.contains(uri("p1")))
        let checkpoint = try JSONSerialization.jsonObject(with: Data(contentsOf: cache.appendingPathComponent("streams.json"))) as? [String: Any]
        #expect((checkpoint?["cursors"] as? [String: String])?["bluesky-jetstream"] == String(third))
        #expect((checkpoint?["pending"] as? [Any])?.isEmpty == true)
        // Nothing of the forgotten post's text is left in the batches.
        let batches = try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("results/streams").path)
        for name in batches {
            let body = try String(contentsOf: cache.appendingPathComponent("results/streams/\(name)"), encoding: .utf8)
            #expect(!body.contains("#ucd one"), "\(name)")
        }

        // The next watch resumes from the cursor, rewound 5 s (delivery is at least
        // once): the fake's events are 1 µs apart, so p1 to p3 come again. With a
        // larger batch they and a new post wait in the open batch when it is killed.
        let larger = arguments.map { $0 == "2" ? "100" : $0 }
        let before = jetstream.subscriptions.count
        let second = try ServingProcess.start(bin, larger)
        defer { second.kill() }
        try await connected(jetstream, subscriptionsBefore: before)
        #expect(jetstream.subscriptions.last?.contains("cursor=\(third - 5_000_000)") == true, "\(jetstream.subscriptions)")
        jetstream.send(FakeJetstream.post(did: Self.did, rkey: "p4", text: "#ucd four", tags: ["ucd"]))
        try await waitForSpool(cache, holding: "/p4")
        Glibc.kill(second.process.processIdentifier, SIGKILL)
        // Waited for off the cooperative pool, which Foundation needs free to reap the child.
        try await onOwnThread { second.process.waitUntilExit() }
        #expect(try known(cache, ["p4"]).isEmpty, "not cached before the kill")

        // A third watch first caches what the killed one had received; the replayed
        // p1 stays forgotten (its tombstone keeps it out).
        let third2 = try ServingProcess.start(bin, larger)
        defer { third2.kill() }
        _ = try await third2.errors(untilLine: "watch: cached 4 posts the last watch had received")
        #expect(try known(cache, ["p1", "p2", "p3", "p4"]) == [uri("p2"), uri("p3"), uri("p4")])
        #expect(try await third2.stop() == 0)
        await jetstream.stop()
    }

    @Test func streamOptionsAreChecked() async throws {
        let dir = try ScratchDirectory.make("tc-watch-stream-args")
        let jet = try await CommandRunner.run(bin, ["watch", "#ucd", "--jetstream", "ws://127.0.0.1:9/subscribe", "--cache", dir.path])
        #expect(jet.status != 0 && jet.stderr.contains("--jetstream is for --stream --network bluesky"))
        let polls = try await CommandRunner.run(bin, ["watch", "#ucd", "--stream", "--polls", "2", "--cache", dir.path])
        #expect(polls.status != 0 && polls.stderr.contains("--polls is for polling"))
        let token = try await CommandRunner.run(bin, ["watch", "#ucd", "--stream", "--api-base", "http://127.0.0.1:9", "--cache", dir.path],
                                                environment: ["TWEETCACHE_BEARER_TOKEN": ""])
        #expect(token.status == 2, "\(token.stderr)")
        let account = try await CommandRunner.run(bin, ["watch", "@someone@example.social", "--stream", "--network", "mastodon",
                                                        "--instance", "https://127.0.0.1:9", "--cache", dir.path])
        #expect(account.status == 2 && account.stderr.contains("only hashtags have a stream"), "\(account.stderr)")
    }
}

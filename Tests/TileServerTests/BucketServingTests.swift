import CacheCore
import BlobStore
import Foundation
import Imaging
import Logging
import MediaFetch
import ObjectStore
import Pipeline
import Testing
import TestSupport
@testable import TileServer
#if canImport(Glibc)
import Glibc
#endif

/// `serve` over a shared store on a machine that did not fetch, through the same
/// seam for a bucket (a real RADOS Gateway on loopback) and a folder: the store is
/// never trusted, and a store that hangs does not hang the server.
@Suite(.serialized) struct BucketServingTests {
    /// A bucket holding one run (a 1200x900 JPEG with its pack and thumbnails, and
    /// an avatar), published by a first machine; its client and the photo's hash.
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case bucket, folder
        var testDescription: String { rawValue }
    }

    struct Published {
        var storage: any CacheStorage
        /// The bucket's client (nil for a folder).
        var client: S3Client?
        var photo: BlobHash
        var photoBytes: [UInt8]
        var avatar: BlobHash
        var scratch: URL
    }

    static func publish(_ hint: String, backend: Backend = .bucket, environment: [String: String]? = nil) async throws -> Published {
        let scratch = try ScratchDirectory.make("tc-bucket-serve")
        let storage: any CacheStorage
        var client: S3Client? = nil
        switch backend {
        case .bucket:
            let rgwEnvironment: [String: String]
            if let environment { rgwEnvironment = environment } else { rgwEnvironment = try await RGWServer.running().environment }
            let bucket = try S3Client(location: S3Location(bucket: RGWServer.bucketName(hint), prefix: "tc"),
                                      settings: S3Settings.fromEnvironment(rgwEnvironment))
            try await bucket.createBucket()
            client = bucket
            storage = bucket
        case .folder:
            let root = scratch.appendingPathComponent("shared")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            storage = try LocalStorage(root: root)
        }
        let photo = try JPEGEncoder.encode(ServerFixture.quadrants(width: 1200, height: 900), quality: 90)
        let avatar = try JPEGEncoder.encode(ServerFixture.quadrants(width: 400, height: 400), quality: 80)
        let origin = try LoopbackHTTPServer { request in
            if request.path.contains("Photo1") { return .respond(status: 200, body: photo) }
            if request.path.contains("face_400x400") { return .respond(status: 200, body: avatar) }
            return .respond(status: 404)
        }
        defer { origin.stop() }
        var fetch = FetchConfiguration()
        fetch.mirrors = try MirrorMap(specs: ["pbs.twimg.com=\(origin.baseURL)/pbs"])
        var options = PipelineOptions(cacheRoot: scratch.appendingPathComponent("first"), fetch: fetch)
        var derive = DeriveOptions()
        derive.tiles = .eager
        options.derive = derive
        options.publisher = StorePublisher(storage: storage, layout: CacheLayout(root: options.cacheRoot)).session()
        let page = """
            {"statuses":[{"id_str":"1","created_at":"Wed Oct 10 20:19:24 +0000 2018","full_text":"#zoom",
             "extended_entities":{"media":[{"id_str":"m1","type":"photo","media_url_https":"https://pbs.twimg.com/media/Photo1.jpg"}]},
             "user":{"id_str":"u1","screen_name":"eve","name":"Eve",
                     "profile_image_url_https":"https://pbs.twimg.com/profile_images/1/face_normal.jpg"}}]}
            """
        let result = try await CachePipeline(options: options).run([ResultsInput(name: "p.json", data: Data(page.utf8))])
        #expect(result.summary.store?.failed == 0)
        #expect(result.summary.store?.manifestKey != nil)
        return Published(storage: storage, client: client, photo: BlobHash(hashing: photo), photoBytes: photo, avatar: BlobHash(hashing: avatar),
                         scratch: scratch)
    }

    /// A second machine's server over the bucket: its catalog synced, nothing else local.
    static func secondMachine(_ published: Published, name: String = "second", health: StoreHealth? = nil,
                              timeout: Duration = .seconds(30), log: RecordedLog = RecordedLog(), settings: S3Settings? = nil,
                              streamFrom: Int? = nil) async throws -> TileServer {
        let root = published.scratch.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let storage: any CacheStorage
        if let bucket = published.client {
            storage = try S3Client(location: bucket.location, settings: settings ?? bucket.settings, health: health)
        } else {
            storage = try LocalStorage(root: published.scratch.appendingPathComponent("shared"))
        }
        _ = try await BucketSync(storage: storage, layout: CacheLayout(root: root)).run()
        let layout = CacheLayout(root: root)
        var configuration = TileServerConfiguration(cacheRoot: root)
        configuration.port = 0
        configuration.buildsPacks = false
        configuration.requestTimeout = timeout
        if let streamFrom { configuration.streamedOriginalBytes = streamFrom }
        configuration.store = try ReadThroughCache(storage: storage, folder: layout.objectsURL, capacity: 64 << 20,
                                                   quarantine: layout.quarantineURL.appendingPathComponent("bucket"))
        var logger = Logger(label: "test") { _ in log }
        logger.logLevel = .notice
        return try await TileServer.start(configuration, logger: logger, executor: ServerThreads.shared)
    }

    /// Replaces an object behind every server's back.
    static func replace(_ storage: any CacheStorage, _ path: String, with bytes: [UInt8]) async throws {
        try await storage.delete(path)
        #expect(try await storage.store(path, bytes: bytes, sha256: nil, contentType: "application/octet-stream", replace: false) == .stored)
    }

    @Test(arguments: Backend.allCases)
    func aGarbageOrTruncatedOriginalIsNeverServedAndNeverKept(_ backend: Backend) async throws {
        let published = try await Self.publish("garbage", backend: backend)
        defer { published.storage.shutdown(); try? FileManager.default.removeItem(at: published.scratch) }
        let path = CacheLayout.blob(published.photo)
        try await Self.replace(published.storage, path, with: Array("not the original".utf8))
        let log = RecordedLog()
        try await withServer(try await Self.secondMachine(published, log: log)) { (server: TileServer) async throws in
            let root = published.scratch.appendingPathComponent("second")

            for attempt in 0..<2 {
                let answer = try await fetch(server, "/blob/\(published.photo.hex)?n=\(attempt)")
                #expect(answer.status == 502)
                #expect(!answer.text.contains("127.0.0.1") && !answer.text.contains("http"), "\(answer.text)")
            }
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("objects/" + path).path), "never kept")
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("quarantine/bucket/" + path).path))
            #expect(try await metric(server, "tweetcache_integrity_failures_total{kind=\"original\",source=\"bucket\"}") == 2)
            #expect(log.messages.filter { $0.contains("does not match its SHA-256") }.count == 1)
            // Truncated: the same.
            try await Self.replace(published.storage, path, with: Array(published.photoBytes.prefix(published.photoBytes.count / 2)))
            #expect(try await fetch(server, "/blob/\(published.photo.hex)?n=3").status == 502)
            #expect(try await fetch(server, "/iiif/3/\(published.photo.hex)/full/300,/0/default.jpg").status != 200)

            // Repaired in the bucket: served, and kept.
            try await Self.replace(published.storage, path, with: published.photoBytes)
            let repaired = try await fetch(server, "/blob/\(published.photo.hex)?n=4")
            #expect(repaired.status == 200 && repaired.body == published.photoBytes)
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("objects/" + path).path))
            let range = try await fetch(server, "/blob/\(published.photo.hex)?n=6", headers: ["Range": "bytes=0-9"])
            #expect(range.status == 206 && range.body == Array(published.photoBytes.prefix(10)), "ranges over a bucket too")
            // A local copy damaged later is not served either: read again from the bucket.
            try Data("rot".utf8).write(to: root.appendingPathComponent("objects/" + path))
            let reread = try await fetch(server, "/blob/\(published.photo.hex)?n=5")
            #expect(reread.status == 200 && reread.body == published.photoBytes)
        }
    }

    @Test(arguments: Backend.allCases)
    func aGarbageThumbnailOrPackIsMadeAgainFromTheOriginal(_ backend: Backend) async throws {
        let published = try await Self.publish("thumbpack", backend: backend)
        defer { published.storage.shutdown(); try? FileManager.default.removeItem(at: published.scratch) }
        let hash = published.photo
        let thumbPath = try #require(try await published.storage.list("derived/").map(\.key).first { $0.contains(published.photo.hex + ".thumb-") })
        let sizeField: Substring = thumbPath.split(separator: "-").last?.split(separator: ".").first ?? ""
        let size = try #require(Int(sizeField))
        // A sound JPEG of another picture: only its hash gives it away.
        let other = try JPEGEncoder.encode(ServerFixture.quadrants(width: 300, height: 200), quality: 70)
        try await Self.replace(published.storage, thumbPath, with: other)
        var pack = try #require(try await published.storage.get(CacheLayout.pack(hash)))
        let parsed = try PyramidPack(pack)
        let entry = try #require(parsed.entry(level: parsed.geometry.maxLevel, column: 1, row: 1))
        pack[entry.offset + entry.length / 2] ^= 0x10
        try await Self.replace(published.storage, CacheLayout.pack(hash), with: pack)

        try await withServer(try await Self.secondMachine(published)) { (server: TileServer) async throws in
            let thumb = try await fetch(server, "/thumb/\(hash.hex)/\(size)")
            #expect(thumb.status == 200)
            #expect(thumb.body != other)
            #expect(max(try ImageDecoder.info(of: thumb.body).width, try ImageDecoder.info(of: thumb.body).height) == size)
            let tile = try await fetch(server, "/dzi/\(hash.hex)_files/\(parsed.geometry.maxLevel)/1_1.jpg")
            #expect(tile.status == 200)
            #expect(try ImageDecoder.info(of: tile.body).width > 0)
            #expect(try await fetch(server, "/dzi/\(hash.hex)_files/\(parsed.geometry.maxLevel)/0_0.jpg").status == 200)
            #expect(try await metric(server, "tweetcache_integrity_failures_total{kind=\"thumbnail\",source=\"bucket\"}") >= 1)
            #expect(try await metric(server, "tweetcache_integrity_failures_total{kind=\"pack\",source=\"bucket\"}") >= 1)
        }
    }

    /// The gateway stopped with SIGSTOP: connections are accepted and never
    /// answered. Every request ends within its deadline, the store is marked down
    /// (503 with Retry-After at once, `/healthz` degraded, one log line, a metric),
    /// warm objects are still served, and it is found back within 2 s of returning.
    /// A gateway that answers at once but slowly (a piece every 50 ms, as a busy
    /// one sends them): a large cold original is answered as it arrives, past the
    /// request's deadline, the store is never marked down, and the checked copy is
    /// kept. Bytes that are not the original are cut one piece short, so the client
    /// told the length never takes them whole, and they are quarantined, not kept.
    @Test func aSlowStoreStreamsALargeOriginalPastTheDeadlineAndStaysUp() async throws {
        let rgw = try await RGWServer.running()
        let published = try await Self.publish("slow", environment: rgw.environment)
        defer { published.storage.shutdown(); try? FileManager.default.removeItem(at: published.scratch) }
        let bucket = try #require(published.client)
        func bytes(_ seed: UInt32) -> [UInt8] {
            (0..<(1_536 << 10)).map { UInt8(truncatingIfNeeded: (UInt32($0) &+ seed) &* 2_654_435_761 >> 13) }
        }
        let large = bytes(1), garbage = bytes(2)
        let hash = BlobHash(hashing: large), planted = BlobHash(hashing: bytes(3))
        #expect(try await bucket.store(CacheLayout.blob(hash), bytes: large, sha256: hash.hex, contentType: "image/jpeg",
                                       replace: false) == .stored)
        // Under another original's name: what a damaged or planted object is.
        #expect(try await bucket.store(CacheLayout.blob(planted), bytes: garbage, sha256: nil, contentType: "image/jpeg",
                                       replace: false) == .stored)
        let endpoint = try #require(URLComponents(string: rgw.endpoint))
        let proxy = try TCPProxy(upstreamPort: try #require(endpoint.port))
        defer { proxy.stop() }
        var environment = rgw.environment
        environment["AWS_ENDPOINT_URL"] = proxy.baseURL
        let health = StoreHealth(failureThreshold: 1)
        let timeout = Duration.milliseconds(500)
        let server = try await Self.secondMachine(published, health: health, timeout: timeout,
                                                  settings: try S3Settings.fromEnvironment(environment), streamFrom: 1 << 20)
        try await withServer(server) { (server: TileServer) async throws in
            let root = published.scratch.appendingPathComponent("second")
            proxy.throttleAnswers(bytes: 64 << 10, every: .milliseconds(50))
            let clock = ContinuousClock()
            let started = clock.now
            let answer = try await fetch(server, "/blob/\(hash.hex)")
            let took = clock.now - started
            #expect(answer.status == 200 && answer.body == large, "\(answer.status) \(answer.body.count)")
            #expect(took > timeout, "24 pieces 50 ms apart: longer than the deadline (\(took))")
            #expect(answer.header("content-length") == String(large.count), "told the length: \(answer.headers)")
            #expect(health.state == .up, "a store that answers slowly is not down")
            #expect(try await metric(server, "tweetcache_store_up") == 1)
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("objects/" + CacheLayout.blob(hash)).path),
                    "kept once checked")
            proxy.unthrottle()
            #expect(try await fetch(server, "/blob/\(hash.hex)?again").body == large, "from the kept copy")

            proxy.throttleAnswers(bytes: 64 << 10, every: .milliseconds(50))
            // The head promised the length; the connection ends before it (a client that
            // checks lengths, as every HTTP client does, never takes the bytes whole).
            let cut = try await fetch(server, "/blob/\(planted.hex)")
            #expect(cut.status == 200 && cut.header("content-length") == String(garbage.count))
            #expect(cut.body.count < garbage.count, "cut short, never whole")
            // A range is answered from the whole, checked object: over this store it
            // outlasts the deadline (503), but the store answered, so it is not down.
            let other = bytes(4), otherHash = BlobHash(hashing: bytes(4))
            #expect(try await bucket.store(CacheLayout.blob(otherHash), bytes: other, sha256: otherHash.hex,
                                           contentType: "image/jpeg", replace: false) == .stored)
            let ranged = try await fetch(server, "/blob/\(otherHash.hex)", headers: ["Range": "bytes=0-9"])
            #expect(ranged.status == 503, "\(ranged.status)")
            #expect(health.state == .up, "slow, not down")
            proxy.unthrottle()
            let path = CacheLayout.blob(planted)
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("objects/" + path).path), "never kept")
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("quarantine/bucket/" + path).path))
            #expect(try await metric(server, "tweetcache_integrity_failures_total{kind=\"original\",source=\"bucket\"}") == 1)
            #expect(health.state == .up)
        }
    }

    @Test func aHungStoreIsAnsweredWithinTheDeadlineAndFoundBack() async throws {
        let rgw = try await RGWServer.startOwn()
        let published = try await Self.publish("hung", environment: rgw.environment)
        defer { published.storage.shutdown(); try? FileManager.default.removeItem(at: published.scratch) }
        let health = StoreHealth(failureThreshold: 3, probeInterval: .milliseconds(500), probeTimeout: .milliseconds(500))
        let changes = AsyncStream<StoreHealth.State> { continuation in health.onChange { continuation.yield($0) } }
        var events = changes.makeAsyncIterator()
        let log = RecordedLog()
        let timeout = Duration.seconds(2)
        let server = try await Self.secondMachine(published, health: health, timeout: timeout, log: log)
        let hex = published.photo.hex
        #expect(try await fetch(server, "/blob/\(hex)").status == 200, "warm before the store hangs")

        let pid = try #require(pid_t(String(contentsOf: rgw.directory.appendingPathComponent("run/3-rgw.pid"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, SIGSTOP) == 0)
        var stopped = true
        // The gateway runs again before the server stops (its requests end), and stops after it.
        defer { if stopped { kill(pid, SIGCONT) } }
        do {
            try await withServer(server) { (server: TileServer) async throws in
                // Cold requests, each asking the bucket: none outlives its deadline. (A
                // thumbnail of the warm original is made from the local copy: answered.)
                let clock = ContinuousClock()
                let avatar = published.avatar.hex
                for target in ["/blob/\(avatar)?1", "/dzi/\(hex).dzi", "/blob/\(avatar)?2"] {
                    let started = clock.now
                    let answer = try await fetch(server, target)
                    // One deadline, not one per attempt (a second would pass 2x); the store
                    // stays stopped, so any answer is the deadline's. A loaded machine (the
                    // whole suite on two cores) answered 1.2 s past it once.
                    #expect(clock.now - started < timeout * 2, "\(target)")
                    #expect(answer.status == 503, "\(target): \(answer.status)")
                    #expect(!answer.text.contains("127.0.0.1"))
                }
                let thumbStarted = clock.now
                #expect(try await fetch(server, "/thumb/\(hex)/150").status == 200, "made from the warm original")
                // Asking the stopped store would take the whole deadline.
                #expect(clock.now - thumbStarted < timeout, "the store is down: not asked")
                guard case .down = health.state else {
                    Issue.record("the store was not marked down")
                    kill(pid, SIGCONT)
                    stopped = false
                    return
                }
                #expect(await events.next().map { if case .down = $0 { true } else { false } } == true)
                let started = clock.now
                let refused = try await fetch(server, "/blob/\(avatar)?3")
                #expect(clock.now - started < timeout, "refused at once, not asked")
                #expect(refused.status == 503 && refused.header("retry-after") != nil)
                let healthz = try await fetch(server, "/healthz")
                #expect(healthz.text.contains("degraded") && !healthz.text.contains("127.0.0.1"), "\(healthz.text)")
                #expect(try await metric(server, "tweetcache_store_up") == 0)
                #expect(try await fetch(server, "/blob/\(hex)").status == 200, "warm objects are still served")
                #expect(log.messages.filter { $0.contains("the object store is down") }.count == 1)

                #expect(kill(pid, SIGCONT) == 0)
                stopped = false
                let resumed = clock.now
                // Waits for the probe's event, bounded so a broken probe fails the test instead of hanging it.
                let up = await Self.first(of: &events, within: .seconds(10))
                #expect(up == .up)
                #expect(clock.now - resumed < .seconds(5), "found back within a few probes (500 ms apart)")
                #expect(try await fetch(server, "/blob/\(avatar)?4").status == 200)
                #expect(try await fetch(server, "/healthz").text.contains("\"ok\""))
                #expect(try await metric(server, "tweetcache_store_up") == 1)
                #expect(log.messages.filter { $0.contains("answers again") }.count == 1)
            }
        } catch {
            if stopped { kill(pid, SIGCONT) }
            await rgw.stop()
            throw error
        }
        await rgw.stop()
    }

    /// The next element, or nil when none comes within `limit`.
    static func first(of events: inout AsyncStream<StoreHealth.State>.Iterator, within limit: Duration) async -> StoreHealth.State? {
        let box = UncheckedIterator(iterator: events)
        defer { events = box.iterator }
        return await withTaskGroup(of: StoreHealth.State?.self) { group in
            group.addTask { await box.next() }
            group.addTask { try? await Task.sleep(for: limit); return nil }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    final class UncheckedIterator: @unchecked Sendable {
        var iterator: AsyncStream<StoreHealth.State>.Iterator
        init(iterator: AsyncStream<StoreHealth.State>.Iterator) { self.iterator = iterator }
        func next() async -> StoreHealth.State? { await iterator.next() }
    }
}

import BlobStore
import Catalog
import Foundation
import Imaging
import MediaFetch
import ObjectStore
import Pipeline
import Testing
import TestSupport
import TileServer
#if canImport(Glibc)
import Glibc
#endif

/// `--store s3://…` end to end: the real binary, a real RADOS Gateway on loopback
/// (scripts/rgw.sh), and the built-in sample's loopback origin.
///
/// Serialized, as `StoreTrustTests` is: each test runs several whole demos against the
/// one gateway, and some kill a process or pause the proxy in front of the gateway
/// mid-upload. The two suites are apart so that their chains can run side by side.
@Suite(.serialized) struct StoreCommandTests: BucketCommandTesting {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    @Test func aSecondMachineServesEveryTileOfTheFirstsImagesFromTheBucket() async throws {
        let f = try await fixture("twomachines")
        defer { f.close() }
        let (client, environment, dir) = (f.client, f.environment, f.dir)
        let first = dir.appendingPathComponent("first"), second = dir.appendingPathComponent("second")
        let out = try await sampleFetched(into: first, environment)
        let store = try storeSummary(out)
        #expect(store["failed"] as? Int == 0)
        let manifestKey = try #require(store["manifest_key"] as? String)
        // The manifest's name carries the host and a random tag, so no machine picks another's.
        #expect(manifestKey.range(of: #"^manifests/\d{8}T\d{6}Z-[a-z0-9-]+-[0-9a-f]{16}\.json\.zst$"#, options: .regularExpression) != nil)

        // Every original, pack and thumbnail the first machine made is in the bucket, byte for byte.
        let layout = CacheLayout(root: first)
        let localFiles = try FileManager.default.subpathsOfDirectory(atPath: layout.derivedURL.path)
            .filter { $0.hasSuffix(".pack") || $0.contains(".thumb-") }.map { "derived/" + $0 }
            + FileManager.default.subpathsOfDirectory(atPath: layout.blobsURL.path)
            .filter { $0.count > 64 }.map { "blobs/sha256/" + $0 }
        let listed = Dictionary(uniqueKeysWithValues: try await client.list("").map { ($0.key, $0.size) })
        for path in localFiles {
            let size = try FileManager.default.attributesOfItem(atPath: layout.path(path))[.size] as? Int
            #expect(listed[path] == size, "\(path)")
        }
        #expect(store["uploaded"] as? Int == localFiles.count)

        // A second machine with an empty cache: sync, then serve from the bucket.
        let sync = try await CommandRunner.run(bin, ["sync", "--cache", second.path, "--json"], environment: environment)
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(FileManager.default.fileExists(atPath: CacheLayout(root: second).path(manifestKey)))
        let readThrough = try ReadThroughCache(
            storage: S3Client(location: client.location, settings: client.settings),
            folder: CacheLayout(root: second).objectsURL, capacity: 64 << 20)
        var configuration = TileServerConfiguration(cacheRoot: second)
        configuration.port = 0
        configuration.store = readThrough
        let server = try await TileServer.start(configuration, executor: ServerThreads.shared)
        let http = try HTTPFetcher()
        defer { http.shutdown() }

        var tiles: [(url: String, bytes: [UInt8])] = []
        for path in localFiles where path.hasSuffix(".pack") {
            let bytes = [UInt8](try Data(contentsOf: layout.url(path)))
            let pack = try PyramidPack(bytes)
            let hex = String(path.split(separator: "/").last!.prefix(64))
            for level in pack.geometry.levels.map(\.index) {
                let grid = pack.geometry.levels[level]
                for column in 0..<grid.columns {
                    for row in 0..<grid.rows {
                        guard let tile = try pack.tile(bytes, level: level, column: column, row: row) else { continue }
                        tiles.append(("\(server.baseURL)/dzi/\(hex)_files/\(level)/\(column)_\(row).\(pack.format.fileExtension)", tile))
                    }
                }
            }
        }
        #expect(tiles.count > 100)
        let mismatches = await withTaskGroup(of: String?.self) { group in
            var next = 0, bad: [String] = []
            func add() {
                guard next < tiles.count else { return }
                let tile = tiles[next]
                next += 1
                group.addTask {
                    guard case let .success(response) = await http.perform(APIRequest(url: tile.url)),
                          response.status == 200, response.body == tile.bytes else { return tile.url }
                    return nil
                }
            }
            for _ in 0..<8 { add() }
            while let result = await group.next() {
                if let result { bad.append(result) }
                add()
            }
            return bad
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(tiles.count) tiles differ, e.g. \(mismatches.prefix(3))")
        // Packs were read by range, never whole.
        let copied = try FileManager.default.subpathsOfDirectory(atPath: CacheLayout(root: second).objectsURL.path)
        #expect(!copied.contains { $0.hasSuffix(".pack") })
        #expect(copied.contains { $0.contains(".pack@") })
        // Served again from the local copy: the bucket is not asked twice.
        let misses = readThrough.statistics.misses
        await server.stop()
        let again = try await TileServer.start(configuration, executor: ServerThreads.shared)
        for tile in tiles.prefix(50) {
            let url = tile.url.replacingOccurrences(of: server.baseURL, with: again.baseURL)
            guard case let .success(response) = await http.perform(APIRequest(url: url)) else { Issue.record("\(url)"); continue }
            #expect(response.body == tile.bytes)
        }
        #expect(readThrough.statistics.misses == misses)
        await again.stop()
    }

    @Test func twoMachinesFetchingOverlappingResultsIntoOneBucketBothSucceed() async throws {
        let f = try await fixture("concurrent")
        defer { f.close() }
        let (client, environment, dir) = (f.client, f.environment, f.dir)
        async let a = demo(dir.appendingPathComponent("a"), environment)
        async let b = demo(dir.appendingPathComponent("b"), environment)
        let (outA, outB) = try await (a, b)
        #expect(outA.status == 0, "\(outA.stderr)")
        #expect(outB.status == 0, "\(outB.stderr)")
        let storeA = try storeSummary(outA), storeB = try storeSummary(outB)
        #expect(storeA["failed"] as? Int == 0 && storeB["failed"] as? Int == 0)
        let objects = try await client.list("").filter { !$0.key.hasPrefix("manifests/") }
        // Each object was stored by exactly one of them; the other was told it was there (412).
        let uploaded = (storeA["uploaded"] as? Int ?? 0) + (storeB["uploaded"] as? Int ?? 0)
        #expect(uploaded >= objects.count)
        #expect(uploaded <= objects.count + 2)  // RGW honours If-None-Match; a 412 is the rule, not the exception
        #expect((storeA["uploaded"] as? Int ?? 0) + (storeA["already_stored"] as? Int ?? 0) == objects.count)
        let manifests = try await client.list("manifests/")
        #expect(manifests.count == 2)
        #expect(Set(manifests.map(\.key)) == Set([storeA["manifest_key"] as? String, storeB["manifest_key"] as? String].compactMap { $0 }))
    }

    @Test func aProcessKilledDuringALargeUploadLeavesNoObjectAndARerunCompletes() async throws {
        let rgw = try await RGWServer.running()
        let upstream = try #require(URL(string: rgw.endpoint)?.port)
        let proxy = try TCPProxy(upstreamPort: upstream)
        defer { proxy.stop() }
        let f = try await fixture("killed", endpoint: proxy.baseURL)
        defer { f.close() }
        let (client, environment, dir) = (f.client, f.environment, f.dir)
        // A 24 MB "video" goes up in three 8 MB parts.
        var bytes = [UInt8](repeating: 0, count: 24 << 20)
        bytes.replaceSubrange(0..<12, with: [0, 0, 0, 0x18] + Array("ftypmp42".utf8))
        for i in stride(from: 4096, to: bytes.count, by: 4096) { bytes[i] = UInt8(truncatingIfNeeded: i >> 12) }
        let video = bytes
        let videoHash = BlobHash(hashing: video)
        let origin = try LoopbackHTTPServer { request in
            if request.path.hasSuffix(".mp4") { return .respond(status: 200, headers: [("Content-Type", "video/mp4")], body: video) }
            if request.path.hasSuffix(".jpg") { return .respond(status: 200, body: jpegBytes(4_000, 9)) }
            return .respond(status: 404)
        }
        let page = dir.appendingPathComponent("page.json")
        try Data(#"""
        {"statuses":[{"id_str":"5","created_at":"Wed Oct 10 20:19:24 +0000 2018","full_text":"a video",
          "extended_entities":{"media":[{"id_str":"50","type":"video",
            "media_url_https":"https://pbs.twimg.com/ext_tw_video_thumb/50/pu/img/poster.jpg",
            "video_info":{"variants":[{"bitrate":2176000,"content_type":"video/mp4","url":"https://video.twimg.com/ext_tw_video/50/pu/vid/big.mp4"}]}}]},
          "user":{"id_str":"7","screen_name":"dana","name":"Dana"}}]}
        """#.utf8).write(to: page)
        let arguments = ["fetch", page.path, "--cache", dir.appendingPathComponent("cache").path, "--videos", "--json", "--quiet",
                         "--tiles", "none", "--thumb-sizes", "", "--max-size", "64MB",
                         "--mirror", "pbs.twimg.com=\(origin.baseURL)", "--mirror", "video.twimg.com=\(origin.baseURL)"]

        CommandRunner.record(bin, arguments)
        let process = Process()
        process.executableURL = bin
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // One stream for the test, one for the relay's wait: a stream has one reader.
        let (exited, exit) = AsyncStream<Void>.makeStream()
        let (exitedEarly, exitEarly) = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in
            for end in [exit, exitEarly] { end.yield(); end.finish() }
        }
        // Past a third of the video the relay holds everything: the upload cannot
        // finish before the kill lands, however busy the machine is.
        proxy.pause(afterSending: 10 << 20)
        try process.run()
        let reached = await proxy.waitUntilSent(10 << 20, orUntil: exitedEarly)
        #expect(reached, "the fetch ended before its upload got that far")
        kill(process.processIdentifier, SIGKILL)
        for await _ in exited {}
        proxy.resume()
        #expect(process.terminationReason == .uncaughtSignal)

        #expect(try await client.size(CacheLayout.blob(videoHash)) == nil)
        #expect(try await client.list("manifests/").isEmpty)

        let rerun = try await CommandRunner.run(bin, arguments, environment: environment)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try await client.size(CacheLayout.blob(videoHash)) == video.count)
        let stored = try #require(try await client.get(CacheLayout.blob(videoHash), maxBytes: 64 << 20))
        #expect(BlobHash(hashing: stored) == videoHash)
        #expect(try await client.list("manifests/").count == 1)
    }

    @Test func theStoreStoppingMidRunFailsItsUploadsAndARerunFinishes() async throws {
        let rgw = try await RGWServer.running()
        let upstream = try #require(URL(string: rgw.endpoint)?.port)
        let proxy = try TCPProxy(upstreamPort: upstream)
        defer { proxy.stop() }
        let f = try await fixture("stopped", endpoint: proxy.baseURL)
        defer { f.close() }
        let (client, environment, dir) = (f.client, f.environment, f.dir)
        let cache = dir.appendingPathComponent("cache")
        proxy.cut(afterSending: 1 << 20)
        let out = try await demo(cache, environment)
        // The run finishes, says what did not reach the store, and says so in its status.
        #expect(out.status == 1, "\(out.stderr)")
        let store = try storeSummary(out)
        #expect((store["failed"] as? Int ?? 0) > 0)
        #expect(store["manifest_key"] == nil || store["manifest_key"] is NSNull)
        let json = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any]
        let failures = try #require(json?["failures"] as? [[String: Any]])
        let storeFailures = failures.filter { $0["role"] as? String == "store" }
        #expect(storeFailures.count == store["failed"] as? Int)
        #expect(storeFailures.allSatisfy { ($0["error"] as? [String: Any])?["code"] as? String == "store_unreachable" })
        // The downloads themselves are all in the local cache, and the local manifest records the failures.
        #expect(try summary(out)["failed"] as? Int == 0)
        #expect(try await client.list("manifests/").isEmpty)

        proxy.restore()
        let rerun = try await demo(cache, environment)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let again = try storeSummary(rerun)
        #expect(again["failed"] as? Int == 0)
        #expect(again["manifest_key"] is String)
        #expect((again["uploaded"] as? Int ?? 0) > 0)
    }

    @Test func wrongCredentialsAndAMissingBucketStopTheRunBeforeItStarts() async throws {
        let f = try await fixture("creds")
        defer { f.close() }
        let (client, environment, dir) = (f.client, f.environment, f.dir)
        var wrong = environment
        wrong["AWS_SECRET_ACCESS_KEY"] = "wrong-secret-4242424242"
        let denied = try await demo(dir.appendingPathComponent("a"), wrong)
        #expect(denied.status == 2)
        #expect(denied.stderr.contains("AWS_SECRET_ACCESS_KEY") && denied.stderr.contains(client.location.bucket))
        #expect(!denied.stderr.contains("wrong-secret") && !denied.stdout.contains("wrong-secret"))
        #expect(!denied.stderr.contains(environment["AWS_ACCESS_KEY_ID"] ?? "?"))

        var missing = environment
        missing["TWEETCACHE_STORE"] = "s3://\(RGWServer.bucketName("absent"))"
        let absent = try await demo(dir.appendingPathComponent("b"), missing)
        #expect(absent.status == 2)
        #expect(absent.stderr.contains("does not exist"))
    }

    @Test func verifyOverABucketFindsABlobReplacedBehindItsBack() async throws {
        let f = try await fixture("verify")
        defer { f.close() }
        let (client, environment, dir) = (f.client, f.environment, f.dir)
        _ = try await sampleFetched(into: dir.appendingPathComponent("a"), environment)
        // --store itself: with only $TWEETCACHE_STORE, verify --repair works on the local cache.
        let verifyArgs = ["verify", "--cache", dir.appendingPathComponent("b").path, "--store", client.location.description]
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("b"), withIntermediateDirectories: true)
        let clean = try await CommandRunner.run(bin, verifyArgs, environment: environment)
        #expect(clean.status == 0, "\(clean.stdout) \(clean.stderr)")

        let victim = try #require(try await client.list("blobs/").first?.key)
        try await client.delete(victim)
        _ = try await client.put(victim, bytes: Array("not the original".utf8))
        let found = try await CommandRunner.run(bin, verifyArgs, environment: environment)
        #expect(found.status == 1)
        #expect(found.stdout.contains(victim) && found.stdout.contains("not to its name"), "\(found.stdout)")

        // Deleted, but a manifest names it: missing now, so not counted as fixed.
        let repaired = try await CommandRunner.run(bin, verifyArgs + ["--repair"], environment: environment)
        #expect(repaired.status == 1, "\(repaired.stdout) \(repaired.stderr)")
        #expect(repaired.stdout.contains("(deleted; a manifest names it"), "\(repaired.stdout)")
        #expect(repaired.stdout.contains("1 problems, 1 remaining"), "\(repaired.stdout)")
        #expect(try await client.size(victim) == nil)
    }

    @Test func exportAndInfoOnAnotherMachineReadTheBucket() async throws {
        let f = try await fixture("export")
        defer { f.close() }
        let (environment, dir) = (f.environment, f.dir)
        let first = dir.appendingPathComponent("first"), second = dir.appendingPathComponent("second")
        _ = try await sampleFetched(into: first, environment)
        let exported = dir.appendingPathComponent("exported")
        let export = try await CommandRunner.run(
            bin, ["export", "--cache", second.path, "--out", exported.path, "--name", "{sha256}.{ext}", "--json"],
            environment: environment)
        #expect(export.status == 0, "\(export.stderr)")
        // The same files as an export of the machine that fetched them.
        let reference = dir.appendingPathComponent("reference")
        let local = try await CommandRunner.run(bin, ["export", "--cache", first.path, "--out", reference.path, "--name", "{sha256}.{ext}"])
        #expect(local.status == 0, "\(local.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: reference.path).sorted()
        #expect(!names.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: exported.path).sorted() == names)
        for name in names {
            let bytes = try Data(contentsOf: exported.appendingPathComponent(name))
            #expect(BlobHash(hashing: bytes).hex == String(name.prefix(64)))
        }

        let third = dir.appendingPathComponent("third")
        let hash = String(names[0].prefix(64))
        let info = try await CommandRunner.run(bin, ["info", String(hash.prefix(12)), "--cache", third.path, "--json"],
                                               environment: environment)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains(hash))
        #expect(FileManager.default.fileExists(atPath: CacheLayout(root: third).path(CacheLayout.blob(try #require(BlobHash(hex: hash))))))

        // A machine exporting one user's tweets copies only what that export needs.
        let manifests = CacheLayout(root: first).manifestsURL
        let manifestName = try #require(try FileManager.default.contentsOfDirectory(atPath: manifests.path).first)
        let manifest = try Manifest.read(from: manifests.appendingPathComponent(manifestName))
        let user = try #require(manifest.tweets.first?.author.screenName)
        let fourth = dir.appendingPathComponent("fourth")
        let filtered = try await CommandRunner.run(
            bin, ["export", "--cache", fourth.path, "--out", dir.appendingPathComponent("filtered").path, "--user", user],
            environment: environment)
        #expect(filtered.status == 0, "\(filtered.stderr)")
        let copied = try FileManager.default.subpathsOfDirectory(atPath: CacheLayout(root: fourth).blobsURL.path).filter { $0.count > 64 }
        let all = try FileManager.default.subpathsOfDirectory(atPath: CacheLayout(root: first).blobsURL.path).filter { $0.count > 64 }
        #expect(!copied.isEmpty && copied.count < all.count, "\(copied.count) of \(all.count) originals copied for @\(user)")
    }

    @Test func gcOverABucketKeepsWhatManifestsNameAndWaitsForRunsUploading() async throws {
        let f = try await fixture("gc")
        defer { f.close() }
        _ = try await sampleFetched(into: f.dir.appendingPathComponent("a"), f.environment)
        let named = try await f.client.list("").filter { !$0.key.hasPrefix("manifests/") }.count
        let stray = BlobHash(hashing: Data("no manifest names this".utf8))
        _ = try await f.client.put(CacheLayout.blob(stray), bytes: Array("no manifest names this".utf8))
        // A run uploading now: nothing is collected (it may rely on an unnamed object).
        _ = try await f.client.put("leases/20261125T000000Z-other-0000000000000001.json", bytes: Array("{}".utf8))
        let gc = ["gc", "--cache", f.dir.appendingPathComponent("b").path, "--store", f.client.location.description,
                  "--grace", "0", "--json"]
        try FileManager.default.createDirectory(at: f.dir.appendingPathComponent("b"), withIntermediateDirectories: true)
        let blocked = try await CommandRunner.run(bin, gc, environment: f.environment)
        #expect(blocked.status == 0, "\(blocked.stderr)")
        #expect(blocked.stdout.contains("blocked_by"))
        #expect(try await f.client.size(CacheLayout.blob(stray)) != nil)

        try await f.client.delete("leases/20261125T000000Z-other-0000000000000001.json")
        let collected = try await CommandRunner.run(bin, gc, environment: f.environment)
        #expect(collected.status == 0, "\(collected.stderr)")
        #expect(try await f.client.size(CacheLayout.blob(stray)) == nil)
        #expect(try await f.client.list("").filter { !$0.key.hasPrefix("manifests/") }.count == named)
    }

    /// `serve --store` listens before it has read the bucket's runs, and reads them in
    /// the background, saying what it found.
    @Test func serveListensAtOnceAndSyncsTheStoresRunsInTheBackground() async throws {
        let f = try await fixture("servesync")
        defer { f.close() }
        _ = try await sampleFetched(into: f.dir.appendingPathComponent("a"), f.environment)
        let serving = try ServingProcess.start(
            bin, ["serve", "--cache", f.dir.appendingPathComponent("b").path, "--port", "0"], environment: f.environment)
        defer { serving.kill() }
        _ = try await serving.port()
        let errors = try await serving.errors(untilLine: "serve: \(f.client.location.description): ")
        #expect(errors.contains(": 1 runs, 1 new"), "\(errors)")
        #expect(FileManager.default.fileExists(atPath: f.dir.appendingPathComponent("b/manifests").path))
        #expect(try await serving.stop() == 0)
    }

    /// Junk someone left under manifests/ and leases/ of a shared bucket stops neither
    /// verify nor gc: it is named and skipped.
    @Test func junkManifestsAndLeasesAreNamedAndSkipped() async throws {
        let f = try await fixture("junk")
        defer { f.close() }
        _ = try await sampleFetched(into: f.dir.appendingPathComponent("a"), f.environment)
        _ = try await f.client.put("manifests/junk.json", bytes: Array("not a manifest".utf8))
        _ = try await f.client.put("leases/bogus", bytes: Array("x".utf8))
        _ = try await f.client.put("leases/.write-check-42", bytes: Array("x".utf8))
        let b = f.dir.appendingPathComponent("b")
        try FileManager.default.createDirectory(at: b, withIntermediateDirectories: true)
        let store = ["--cache", b.path, "--store", f.client.location.description]
        let verify = try await CommandRunner.run(bin, ["verify"] + store, environment: f.environment)
        #expect(verify.status == 1, "the junk is a problem, not a stop: \(verify.stdout) \(verify.stderr)")
        #expect(verify.stdout.contains("manifests/junk.json: ") && verify.stdout.contains("skipped"), "\(verify.stdout)")
        #expect(verify.stdout.contains("originals re-hashed"))
        let gc = try await CommandRunner.run(bin, ["gc"] + store + ["--grace", "0"], environment: f.environment)
        #expect(gc.status == 0, "\(gc.stdout) \(gc.stderr)")
        #expect(gc.stdout.contains("leases/bogus is not a run's lease; ignored"), "\(gc.stdout)")
        #expect(gc.stdout.contains("leases/.write-check-42 is not a run's lease; ignored"))
        #expect(gc.stdout.contains("manifests/junk.json: ") && gc.stdout.contains("junk, skipped"))
        #expect(gc.stdout.contains("objects named by manifests; removed 0"), "\(gc.stdout)")
    }

    @Test func aPostForgottenOnOneMachineLeavesTheBucketAndTheOtherAtItsSync() async throws {
        let f = try await fixture("forget")
        defer { f.close() }
        let first = f.dir.appendingPathComponent("first"), second = f.dir.appendingPathComponent("second")
        _ = try await sampleFetched(into: first, f.environment)
        let synced = try await CommandRunner.run(bin, ["sync", "--cache", second.path, "--json"], environment: f.environment)
        #expect(synced.status == 0, "\(synced.stderr)")
        func tweets(_ cache: URL) async throws -> [[String: Any]] {
            let out = try await CommandRunner.run(bin, ["tweets", "--cache", cache.path, "--json", "--limit", "1000"], environment: f.environment)
            return try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [[String: Any]])
        }
        let before = try await tweets(second)
        let target = try #require(before.first { ($0["media"] as? [String])?.isEmpty == false })
        let id = try #require(target["id"] as? String)
        let others = Set(before.filter { $0["id"] as? String != id }.flatMap { $0["media"] as? [String] ?? [] })
        let own = (target["media"] as? [String] ?? []).filter { !others.contains($0) }.compactMap { BlobHash(hex: $0) }
        #expect(!own.isEmpty)
        for hash in own { #expect(try await f.client.size(CacheLayout.blob(hash)) != nil) }

        let out = try await CommandRunner.run(bin, ["forget", id, "--cache", first.path, "--json"], environment: f.environment)
        #expect(out.status == 0, "\(out.stderr)")
        // Gone from the bucket: its photos' objects, and from its manifest.
        for hash in own {
            #expect(try await f.client.size(CacheLayout.blob(hash)) == nil)
            #expect(try await f.client.size(CacheLayout.pack(hash)) == nil)
        }
        for object in try await f.client.list("manifests/") {
            let bytes = try #require(try await f.client.get(object.key))
            #expect(Data(bytes).range(of: Data("\"\(id)\"".utf8)) == nil, "\(object.key) still names the post")
        }
        #expect(try await f.client.list("tombstones/").count == 1)

        // The second machine drops it at its next sync, and lists the rest as before.
        let again = try await CommandRunner.run(bin, ["sync", "--cache", second.path, "--json"], environment: f.environment)
        #expect(again.status == 0, "\(again.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect(report["tombstones"] as? Int == 1 && report["forgotten"] as? Int == 1, "\(again.stdout)")
        let after = try await tweets(second)
        #expect(after.count == before.count - 1)
        #expect(!after.contains { $0["id"] as? String == id })
        #expect(try TombstoneLog(cacheRoot: second).keys() == [PostIdentity(network: .x, id: id)])
    }
}

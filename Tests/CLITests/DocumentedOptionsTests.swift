import Foundation
import Imaging
import Testing
import TestSupport

/// Options README documents that no other test ran, each run here by the built binary
/// with an assertion on what it changes (OptionCoverageTests keeps the list whole).
@Suite struct DocumentedOptionsTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    // MARK: --manifest

    @Test func manifestIsWrittenWhereverItIsAskedForAndReplacedWhole() async throws {
        let (dir, page) = try scratchWithPage("tc-manifest")
        let server = try makeServer()
        func fetch(_ manifest: String, cache: String, cwd: URL? = nil) async throws -> (CommandOutput, [String: Any]) {
            let out = try await CommandRunner.run(
                bin, ["fetch", page.path, "--cache", dir.appendingPathComponent(cache).path, "--quiet", "--json",
                      "--mirror", "pbs.twimg.com=\(server.baseURL)", "--manifest", manifest],
                currentDirectory: cwd)
            #expect(out.status == 0, "\(out.stderr)")
            return (out, try summary(out))
        }
        // The command as a new user typed it, in an empty folder: `out` is made with the
        // cache inside it, and the copy goes beside the cache.
        let (_, fresh) = try await fetch("out/m.json", cache: "out/c", cwd: dir)
        let freshOwn = try #require(fresh["manifest_path"] as? String)
        // The copy is the plain JSON a script expects at `m.json`; the cache's is compressed.
        #expect(freshOwn.hasSuffix(".json.zst"))
        #expect(try Data(contentsOf: dir.appendingPathComponent("out/m.json")) == manifestJSON(URL(fileURLWithPath: freshOwn)))
        #expect(try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("out/m.json"))) is [String: Any])
        // Relative to the working folder, in a folder outside the cache.
        let outside = dir.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let (_, first) = try await fetch("elsewhere/m.json", cache: "c", cwd: dir)
        let own = try #require(first["manifest_path"] as? String)
        #expect(own.hasPrefix(dir.appendingPathComponent("c/manifests").path), "the run's own manifest stays in the cache")
        let copy = outside.appendingPathComponent("m.json")
        #expect(try Data(contentsOf: copy) == manifestJSON(URL(fileURLWithPath: own)))
        // An existing file is replaced by the whole new manifest; no temporary is left.
        try Data("old".utf8).write(to: copy)
        let (_, second) = try await fetch(copy.path, cache: "c")
        let own2 = try #require(second["manifest_path"] as? String)
        #expect(own2 != own)
        #expect(try Data(contentsOf: copy) == manifestJSON(URL(fileURLWithPath: own2)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["m.json"])
        // On another file system (tmpfs), where a rename from the cache cannot reach.
        if FileManager.default.fileExists(atPath: "/dev/shm") {
            let shm = URL(fileURLWithPath: "/dev/shm/tc-manifest-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: shm) }
            let (_, third) = try await fetch(shm.path, cache: "c2")
            let own3 = try #require(third["manifest_path"] as? String)
            #expect(try Data(contentsOf: shm) == manifestJSON(URL(fileURLWithPath: own3)))
        }
        // A PATH ending in `.zst` gets the compressed file as the run wrote it.
        let packed = outside.appendingPathComponent("m.json.zst")
        let (_, fourth) = try await fetch(packed.path, cache: "c")
        let own4 = try #require(fourth["manifest_path"] as? String)
        #expect(try Data(contentsOf: packed) == Data(contentsOf: URL(fileURLWithPath: own4)))
    }

    @Test func aManifestPathThatCannotBeWrittenIsRefusedBeforeAnyDownload() async throws {
        let server = try makeServer()
        let (dir, page) = try scratchWithPage("tc-manifest-bad")
        let file = dir.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: file)
        let cases: [(String, String)] = [
            (dir.appendingPathComponent("missing/m.json").path, "does not exist"),
            (file.appendingPathComponent("m.json").path, "is not a folder"),
            (dir.path, "it is a folder"),
        ]
        for (path, reason) in cases {
            let out = try await CommandRunner.run(
                bin, ["fetch", page.path, "--cache", dir.appendingPathComponent("c").path, "--quiet",
                      "--mirror", "pbs.twimg.com=\(server.baseURL)", "--manifest", path])
            #expect(out.status == 2, "\(path): \(out.stderr)")
            #expect(out.stderr.contains("--manifest") && out.stderr.contains(path) && out.stderr.contains(reason), "\(out.stderr)")
        }
        #expect(server.requests.isEmpty, "nothing was downloaded")
        let manifests = (try? FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("c/manifests").path)) ?? []
        #expect(manifests.filter { !$0.hasPrefix(".") }.isEmpty, "no run happened")
    }

    /// `search` with every fetch tuning option and `--manifest`: the run's settings
    /// reach the pipeline (no PDQ), its manifest is copied.
    @Test func searchTakesTheFetchOptions() async throws {
        let fake = try FakeSearchAPI()
        let dir = try ScratchDirectory.make("tc-search-options")
        let cache = dir.appendingPathComponent("Cache")
        let copy = dir.appendingPathComponent("run.json")
        let out = try await CommandRunner.run(
            bin, ["search", "#ucd", "--api-base", fake.baseURL, "--count", "20", "--cache", cache.path,
                  "--mirror", fake.mirrorSpec, "--json", "--concurrency", "2", "--per-host", "1",
                  "--connect-timeout", "5", "--stall-timeout", "5", "--attempts", "2", "--tile-size", "64",
                  "--overlap", "1", "--no-pdq", "--manifest", copy.path, "--local-max", "64MB"],
            environment: ["TWEETCACHE_BEARER_TOKEN": fake.configuration.token])
        #expect(out.status == 0, "\(out.stderr)")
        let s = try summary(out)
        #expect(s["tweets"] as? Int == 20)
        let own = try #require(s["manifest_path"] as? String)
        let bytes = try Data(contentsOf: copy)
        #expect(bytes == (try manifestJSON(URL(fileURLWithPath: own))))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("\"pdq\""), "--no-pdq: no perceptual hashes")
    }

    /// `demo` with the fetch options, `--manifest`, then serving with `--keep-serving`.
    @Test func demoTakesTheFetchOptionsAndKeepsServing() async throws {
        let dir = try ScratchDirectory.make("tc-demo-options")
        let cache = dir.appendingPathComponent("cache")
        let copy = dir.appendingPathComponent("demo.json")
        let arguments = ["demo", "--cache", cache.path, "--quiet", "--concurrency", "4", "--per-host", "2",
                         "--connect-timeout", "5", "--stall-timeout", "5", "--attempts", "2", "--tile-size", "512",
                         "--overlap", "1", "--no-pdq", "--manifest", copy.path, "--local-max", "64MB",
                         "--keep-serving", "--port", "0", "--origin-port", "0"]
        // The options are what this checks: the photos are drawn at a quarter of their size.
        let server = try ServingProcess.start(bin, arguments, environment: smallDemo)
        defer { server.kill() }
        let port = try await server.port()
        let health = try await RawHTTPClient.sendAwaiting("GET", "/healthz", port: port)
        #expect(health.status == 200)
        let manifest = try String(contentsOf: copy, encoding: .utf8)
        #expect(manifest.contains("\"tile_size\" : 512") || manifest.contains("\"tile_size\":512"))
        #expect(!manifest.contains("\"pdq\""))
        #expect(try await server.stop() == 0, "SIGTERM ends the server cleanly")
    }

    // MARK: serve

    @Test func serveTakesEveryOption() async throws {
        let dir = try ScratchDirectory.make("tc-serve-options")
        let cache = try await SharedDemoCache.url(bin)
        let photos = try await CommandRunner.run(bin, ["ls", "--type", "photo", "--sort", "size", "--cache", cache.path, "--json"])
        let first = try #require(photos.stdout.firstMatch(of: try Regex("[0-9a-f]{64}"))?.0, "\(photos.stdout)")
        let token = dir.appendingPathComponent("token")
        try Data("not-a-real-token\n".utf8).write(to: token)
        let store = dir.appendingPathComponent("store")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        let server = try ServingProcess.start(bin, [
            "serve", "--cache", cache.path, "--host", "127.0.0.1", "--port", "0",
            "--public-url", "http://tc.example.test/archive", "--tile-size", "128", "--max-size", "300",
            "--timeout", "5", "--token-file", token.path, "--api", "v1.1", "--api-base", ClosedPort().baseURL,
            "--max-wait", "1s", "--search-count", "10", "--mirror", "pbs.twimg.com=\(ClosedPort().baseURL)",
            "--store", "file://\(store.path)", "--local-max", "64MB", "--allow-host", "archive.example.test",
        ])
        defer { server.kill() }
        let port = try await server.port()
        let tweets = try await RawHTTPClient.sendAwaiting("GET", "/api/tweets?q=ucd", port: port)
        #expect(tweets.status == 200)
        // --allow-host and the public URL's host are its own; any other gets 421.
        for (host, status) in [("archive.example.test", 200), ("tc.example.test:443", 200), ("rebound.example.test", 421)] {
            let answer = try await onOwnThread {
                try RawHTTPConnection(port: port).get("/api/tweets?q=ucd", host: host)
            }
            #expect(answer.status == status, "Host: \(host)")
        }
        #expect(tweets.text.contains("ucd"))
        let info = try await RawHTTPClient.sendAwaiting("GET", "/iiif/3/\(first)/info.json", port: port)
        #expect(info.status == 200, "\(info.text)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(info.body)) as? [String: Any])
        #expect((json["id"] as? String)?.hasPrefix("http://tc.example.test/archive/iiif/3/") == true, "--public-url")
        #expect(json["maxWidth"] as? Int == 300, "--max-size")
        let tooWide = try await RawHTTPClient.sendAwaiting("GET", "/iiif/3/\(first)/full/301,/0/default.jpg", port: port)
        #expect(tooWide.status >= 400)
        #expect(try await server.stop() == 0)
    }

    @Test func serveForVisitorsTakesItsOptions() async throws {
        let dir = try ScratchDirectory.make("tc-serve-public")
        // A copy: this server writes thumbnails into its cache.
        let cache = dir.appendingPathComponent("cache")
        try FileManager.default.copyItem(at: try await SharedDemoCache.url(bin), to: cache)
        let photos = try await CommandRunner.run(bin, ["ls", "--type", "photo", "--sort", "size", "--cache", cache.path, "--json"])
        let first = try #require(photos.stdout.firstMatch(of: try Regex("[0-9a-f]{64}"))?.0, "\(photos.stdout)")
        let token = dir.appendingPathComponent("operator")
        let secret = "an-operator-token-for-this-test"
        try Data("\(secret)\n".utf8).write(to: token)
        let server = try ServingProcess.start(bin, [
            "serve", "--cache", cache.path, "--port", "0", "--operator-token-file", token.path, "--trust-proxy",
            "--render-rate", "0.001", "--render-burst", "1", "--thumb-sizes", "91",
        ])
        defer { server.kill() }
        let port = try await server.port()
        // Behind a proxy it is public: the history is the operator's.
        #expect(try await RawHTTPClient.sendAwaiting("GET", "/api/history", port: port).status == 401)
        #expect(try await RawHTTPClient.sendAwaiting("GET", "/api/history", port: port,
                                                     headers: ["Authorization": "Bearer \(secret)"]).status == 200)
        // One new image per forwarded client, then 429; --thumb-sizes 91 is kept on disk.
        let client = ["X-Forwarded-For": "203.0.113.9"]
        #expect(try await RawHTTPClient.sendAwaiting("GET", "/thumb/\(first)/91", port: port, headers: client).status == 200)
        let refused = try await RawHTTPClient.sendAwaiting("GET", "/thumb/\(first)/92", port: port, headers: client)
        #expect(refused.status == 429 && refused.header("retry-after") != nil)
        #expect(try await RawHTTPClient.sendAwaiting("GET", "/thumb/\(first)/92", port: port,
                                                     headers: ["X-Forwarded-For": "203.0.113.10"]).status == 200)
        let kept = try FileManager.default.subpathsOfDirectory(atPath: cache.path)
        #expect(kept.contains { $0.hasSuffix("\(first).thumb-91.jpg") })
        #expect(!kept.contains { $0.hasSuffix("\(first).thumb-92.jpg") })
        #expect(try await server.stop() == 0)

        let readOnly = try ServingProcess.start(bin, ["serve", "--cache", cache.path, "--port", "0", "--read-only"])
        defer { readOnly.kill() }
        let readOnlyPort = try await readOnly.port()
        let off = try await RawHTTPClient.sendAwaiting("GET", "/api/history", port: readOnlyPort)
        #expect(off.status == 403 && off.text.contains("read-only"))
        #expect(try await RawHTTPClient.sendAwaiting("GET", "/api/tweets", port: readOnlyPort).status == 200)
        #expect(try await readOnly.stop() == 0)

        // A token too short to hold against guessing is refused at the start.
        try Data("short\n".utf8).write(to: token)
        let weak = try await CommandRunner.run(bin, ["serve", "--cache", cache.path, "--port", "0", "--operator-token-file", token.path])
        #expect(weak.status == 2 && weak.stderr.contains("at least 16 characters"), "\(weak.stderr)")
    }

    // MARK: the object-store options on every command that takes them

    @Test func storeOptionsOnEveryCommand() async throws {
        let server = try makeServer()
        let (dir, page) = try scratchWithPage("tc-store-options")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("bucket"), withIntermediateDirectories: true)
        let store = "file://" + dir.appendingPathComponent("bucket").path
        let first = dir.appendingPathComponent("one").path, second = dir.appendingPathComponent("two").path
        let fetched = try await CommandRunner.run(
            bin, ["fetch", page.path, "--cache", first, "--store", store, "--local-max", "64MB", "--quiet", "--json",
                  "--mirror", "pbs.twimg.com=\(server.baseURL)"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect((try summary(fetched)["store"] as? [String: Any])?["manifest_key"] != nil)
        // The bucket's copy of the manifest names no local path: not the cache, not the page's folder.
        let bucketManifests = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("bucket/manifests").path)
            .filter { $0.hasSuffix(".json.zst") }
        #expect(bucketManifests.count == 1)
        for name in bucketManifests {
            let text = try manifestText(dir.appendingPathComponent("bucket/manifests/\(name)"))
            #expect(!text.contains(dir.path) && text.contains("\"cache_root\" : \"\""),
                    "\(text.split(separator: "\n").filter { $0.contains(dir.path) })")
        }
        let sync = try await CommandRunner.run(bin, ["sync", "--cache", second, "--store", store, "--local-max", "64MB", "--json"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let tweets = try await CommandRunner.run(bin, ["tweets", "--cache", second, "--color", "never"])
        #expect(tweets.stdout.contains("@dana"), "the second machine lists the first one's posts: \(tweets.stdout)")
        for arguments in [["stats"], ["info", "1"], ["verify", "--jobs", "1"], ["gc", "--dry-run"],
                          ["export", "--out", dir.appendingPathComponent("export").path]] {
            let out = try await CommandRunner.run(
                bin, arguments + ["--cache", second, "--store", store, "--local-max", "64MB", "--json"])
            #expect(out.status == 0, "\(arguments): \(out.stderr)")
        }
    }

    // MARK: the cache's readers on the demo's sample

    @Test func readersTakeTheirOptions() async throws {
        let dir = try ScratchDirectory.make("tc-reader-options")
        let cache = try await SharedDemoCache.url(bin).path
        func run(_ arguments: [String]) async throws -> CommandOutput {
            let out = try await CommandRunner.run(bin, arguments + ["--cache", cache])
            #expect(out.status == 0, "\(arguments): \(out.stderr)")
            return out
        }
        // dupes: the sample's one repost at the default threshold, none at 0 bits unless identical.
        let dupes = try await run(["dupes", "--threshold", "31", "--limit", "1", "--json"])
        #expect(dupes.stdout.contains("sha256"))
        // pdq of a cached photo, with its turned and mirrored hashes; match finds it at threshold 0.
        let ls = try await run(["ls", "--tag", "ucd", "--type", "photo", "--json"])
        let hash = try #require(ls.stdout.firstMatch(of: try Regex("[0-9a-f]{64}"))?.0, "\(ls.stdout)")
        let blob = URL(fileURLWithPath: cache).appendingPathComponent("blobs/sha256/\(hash.prefix(2))/\(hash)").path
        let pdq = try await CommandRunner.run(bin, ["pdq", blob, "--dihedral", "--jobs", "1"])
        #expect(pdq.status == 0, "\(pdq.stderr)")
        let hashes = pdq.stdout.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\n" })
            .filter { $0.count == 64 && $0.allSatisfy(\.isHexDigit) }
        #expect(hashes.count == 8, "--dihedral: eight hashes: \(pdq.stdout)")
        let list = dir.appendingPathComponent("list.txt")
        try Data(((hashes.first.map { String($0) } ?? "") + " mine\n").utf8).write(to: list)
        let match = try await run(["match", list.path, "--threshold", "31", "--json"])
        #expect(match.stdout.contains(String(hash)))
        _ = try await run(["verify", "--jobs", "1", "--json"])
        let gc = try await run(["gc", "--older-than", "3650d", "--dry-run", "--json"])
        #expect(!gc.stdout.isEmpty)
        // export's static trees and IIIF Presentation documents.
        let out = dir.appendingPathComponent("export")
        _ = try await run(["export", "--out", out.path, "--tag", "ucd", "--tiles", "dz", "--iiif-base", "https://x.test/iiif/3",
                           "--iiif-presentation", dir.appendingPathComponent("prezi").path,
                           "--presentation-base", "https://x.test/prezi", "--json"])
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("dzi").path))
        let prezi = try FileManager.default.subpathsOfDirectory(atPath: dir.appendingPathComponent("prezi").path)
        #expect(!prezi.isEmpty)
    }

    /// Two posts whose photos carry one media id (ids are the networks', and not
    /// unique across them): `--name '{media_id}.{ext}'` gives both one name, and the
    /// second is numbered rather than written over the first.
    @Test func exportNamesThatCollideAreNumbered() async throws {
        let server = try makeServer()
        let dir = try ScratchDirectory.make("tc-export-names")
        let first = dir.appendingPathComponent("a.json")
        try Data(cliPage.utf8).write(to: first)
        let second = dir.appendingPathComponent("b.json")
        try Data(#"""
            {"statuses":[{"id_str":"3","created_at":"Thu Oct 11 20:19:24 +0000 2018","full_text":"three",
              "extended_entities":{"media":[{"id_str":"11","type":"photo","media_url_https":"https://pbs.twimg.com/media/BBB.jpg"}]},
              "user":{"id_str":"8","screen_name":"eli","name":"Eli"}}]}
            """#.utf8).write(to: second)
        let cache = dir.appendingPathComponent("c").path
        let fetched = try await CommandRunner.run(
            bin, ["fetch", first.path, second.path, "--cache", cache, "--quiet", "--mirror", "pbs.twimg.com=\(server.baseURL)"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let out = dir.appendingPathComponent("out")
        let export = try await CommandRunner.run(bin, ["export", "--cache", cache, "--out", out.path, "--name", "{media_id}.{ext}"])
        #expect(export.status == 0, "\(export.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(names == ["11-2.jpg", "11.jpg", "12.jpg"], "\(names)")
        // Oldest post first: post 1's photo keeps the name, post 3's is numbered.
        #expect(try Data(contentsOf: out.appendingPathComponent("11.jpg")) == Data(jpegBytes(20_000, 1)))
        #expect(try Data(contentsOf: out.appendingPathComponent("11-2.jpg")) == Data(jpegBytes(30_000, 2)))
    }

    // MARK: thumb and tile: every option, and outputs that never collide

    @Test func thumbNamesEveryInputApartAndTakesItsOptions() async throws {
        let dir = try ScratchDirectory.make("tc-thumb-names")
        for folder in ["a", "b"] { try FileManager.default.createDirectory(at: dir.appendingPathComponent(folder), withIntermediateDirectories: true) }
        let inputs = [dir.appendingPathComponent("a/photo.jpg"), dir.appendingPathComponent("a/photo.png"),
                      dir.appendingPathComponent("b/photo.jpg"), dir.appendingPathComponent("a/other.jpg")]
        for (i, input) in inputs.enumerated() { try writeImage(input, width: 400, height: 300, seed: UInt8(i)) }
        let out = dir.appendingPathComponent("out")
        let run = try await CommandRunner.run(
            bin, ["thumb"] + inputs.map(\.path) + ["--size", "100", "--out", out.path, "--quality", "70", "--jobs", "2", "--srgb"])
        #expect(run.status == 0, "\(run.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(names == ["other.jpg", "photo.jpg-2.jpg", "photo.jpg.jpg", "photo.png.jpg"], "\(names)")
        for name in names {
            let decoded = try ImageDecoder.decode([UInt8](Data(contentsOf: out.appendingPathComponent(name))))
            #expect(max(decoded.width, decoded.height) == 100, "--size")
        }
    }

    @Test func tileNamesEveryInputApartAndTakesItsOptions() async throws {
        let dir = try ScratchDirectory.make("tc-tile-names")
        let inputs = [dir.appendingPathComponent("photo.jpg"), dir.appendingPathComponent("photo.png")]
        for (i, input) in inputs.enumerated() { try writeImage(input, width: 600, height: 400, seed: UInt8(i)) }
        let dz = dir.appendingPathComponent("dz")
        let deepZoom = try await CommandRunner.run(
            bin, ["tile"] + inputs.map(\.path) + ["--out", dz.path, "--layout", "dz", "--tile-size", "128", "--overlap", "1",
                                                  "--quality", "80", "--jobs", "1", "--auto-rotate"])
        #expect(deepZoom.status == 0, "\(deepZoom.stderr)")
        let made = try FileManager.default.contentsOfDirectory(atPath: dz.path).sorted()
        #expect(made == ["photo.jpg.dzi", "photo.jpg_files", "photo.png.dzi", "photo.png_files"], "\(made)")
        let dzi = try String(contentsOf: dz.appendingPathComponent("photo.jpg.dzi"), encoding: .utf8)
        #expect(dzi.contains("TileSize=\"128\"") && dzi.contains("Overlap=\"1\""))
        let iiif = dir.appendingPathComponent("iiif")
        let level0 = try await CommandRunner.run(
            bin, ["tile", inputs[0].path, "--out", iiif.path, "--layout", "iiif3", "--iiif-base", "https://x.test/iiif/3"])
        #expect(level0.status == 0, "\(level0.stderr)")
        let info = try String(contentsOf: iiif.appendingPathComponent("photo/info.json"), encoding: .utf8)
        #expect(info.contains("https://x.test/iiif/3/photo"))
    }

    /// An image with alpha keeps it in its tiles (WebP, as the server's pyramids), not
    /// flattened onto white JPEG.
    @Test func tileKeepsAlpha() async throws {
        let dir = try ScratchDirectory.make("tc-tile-alpha")
        var rgba = [UInt8]()
        for y in 0..<300 { for _ in 0..<400 { rgba += y < 150 ? [200, 30, 30, 255] : [0, 0, 0, 0] } }
        let input = dir.appendingPathComponent("clear.png")
        try Data(PNGEncoder.encode(try PixelBuffer(width: 400, height: 300, channels: 4, bytes: rgba))).write(to: input)
        let out = dir.appendingPathComponent("dz")
        let run = try await CommandRunner.run(bin, ["tile", input.path, "--out", out.path, "--tile-size", "512"])
        #expect(run.status == 0, "\(run.stderr)")
        let dzi = try String(contentsOf: out.appendingPathComponent("clear.dzi"), encoding: .utf8)
        #expect(dzi.contains("Format=\"webp\""), "\(dzi)")
        let top = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("clear_files").path)
            .compactMap(Int.init).max() ?? -1
        let tile = try ImageDecoder.decode([UInt8](Data(contentsOf: out.appendingPathComponent("clear_files/\(top)/0_0.webp"))))
        #expect(tile.channels == 4 && tile.width == 400 && tile.height == 300)
        // Typed apart from the expectations: inside `#expect`, the literal arithmetic took 11 s to type-check.
        func alpha(x: Int, y: Int) -> UInt8 { tile.bytes[(y * 400 + x) * 4 + 3] }
        #expect(alpha(x: 10, y: 250) == 0, "the clear half stays clear")
        #expect(alpha(x: 10, y: 10) == 255)
    }
}

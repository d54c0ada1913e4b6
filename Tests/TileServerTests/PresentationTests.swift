import Foundation
import Catalog
import Inspect
import Pipeline
import Testing
import TestSupport
@testable import TileServer

/// IIIF Presentation 3: the server's documents, the export's, and both loaded by a
/// kept validator (iiif-prezi3) whose Image services must resolve on the server.
@Suite struct PresentationTests {
    func json(_ server: TileServer, _ path: String) async throws -> [String: Any] {
        let response = try await fetch(server, path)
        #expect(response.status == 200, "\(path)")
        #expect(response.header("content-type") == PresentationDocument.contentType)
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func manifestsOfAHashtagAUserAndARunPaintEachPhotoWithItsImageService() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let base = server.baseURL

            let collection = try await json(server, "/iiif/presentation/collection.json")
            #expect(collection["type"] as? String == "Collection" && collection["id"] as? String == "\(base)/iiif/presentation/collection.json")
            let runs = (collection["items"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "Collection" }
            #expect(runs.count == 2, "one Collection per run")

            let tag = try await json(server, "/iiif/presentation/hashtag/zoom/manifest.json")
            #expect(tag["@context"] as? String == "http://iiif.io/api/presentation/3/context.json")
            #expect(tag["rights"] == nil, "no licence is known for a tweet")
            let canvases = try #require(tag["items"] as? [[String: Any]])
            // Newest first: bob's 1500x1000 photo (the later run), then eve's 1200x900.
            #expect(canvases.map { [$0["width"] as? Int, $0["height"] as? Int] } == [[1500, 1000], [1200, 900]])
            let eve = canvases[1]
            let annotation = try #require(((eve["items"] as? [[String: Any]])?.first?["items"] as? [[String: Any]])?.first)
            #expect(annotation["motivation"] as? String == "painting" && annotation["target"] as? String == eve["id"] as? String)
            let body = try #require(annotation["body"] as? [String: Any])
            let service = try #require((body["service"] as? [[String: Any]])?.first)
            #expect(service["id"] as? String == "\(base)/iiif/3/\(fixture.eager.hex)" && service["type"] as? String == "ImageService3")
            #expect((eve["homepage"] as? [[String: Any]])?.first?["id"] as? String == "https://x.com/eve/status/101")
            let metadata = (eve["metadata"] as? [[String: Any]] ?? []).compactMap { ($0["value"] as? [String: [String]])?["none"]?.first }
            #expect(metadata.contains("Eve (@eve)") && metadata.contains("2018-10-10T20:19:24Z") && metadata.contains("https://x.com/eve/status/101"))
            #expect((eve["label"] as? [String: [String]])?["none"] == ["#zoom quadrants"])
            let thumbnail = try #require((eve["thumbnail"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(try await fetch(server, String(thumbnail.dropFirst(base.count))).status == 200)

            let user = try await json(server, "/iiif/presentation/user/eve/manifest.json")
            #expect((user["items"] as? [Any])?.count == 1)
            let run = try await json(server, String(try #require(runs.first?["id"] as? String).dropFirst(base.count)))
            let file = try #require((run["items"] as? [[String: Any]])?.first?["id"] as? String)
            #expect((try await json(server, String(file.dropFirst(base.count)))["items"] as? [Any])?.count == 1)

            // Unknown names, and names with no photo, are 404; segments that are not names are 404 too.
            #expect(try await fetch(server, "/iiif/presentation/hashtag/nothing/manifest.json").status == 404)
            #expect(try await fetch(server, "/iiif/presentation/user/~ZXZl/manifest.json").status == 404, "non-canonical form")
            #expect(try await fetch(server, "/iiif/presentation/run/..%2F..%2Fetc/collection.json").status == 400)
            #expect(try await fetch(server, "/iiif/presentation/run/nosuchrun/collection.json").status == 404)
            #expect(try await fetch(server, "/iiif/presentation/other/x/manifest.json").status == 404)
            // Revalidated by ETag; open to other origins like the image API.
            let response = try await fetch(server, "/iiif/presentation/hashtag/zoom/manifest.json")
            #expect(response.header("access-control-allow-origin") == "*")
            let etag = try #require(response.header("etag"))
            let again = try await fetch(server, "/iiif/presentation/hashtag/zoom/manifest.json")
            #expect(again.header("etag") == etag, "the same document, the same bytes")
            #expect(try await fetch(server, "/iiif/presentation/hashtag/zoom/manifest.json", headers: ["If-None-Match": etag]).status == 304)
        }
    }

    @Test func segmentsRoundTripAndStayFileNames() {
        for text in ["zoom", "ana@example.social", "#zoom", "night sky", "a/b", "東京", "..", ".hidden"] {
            let segment = PresentationTarget.segment(text)
            #expect(PresentationTarget.text(segment) == text)
            #expect(!segment.contains("/") && segment != ".." && !segment.hasPrefix("."))
            #expect(PresentationTarget.parse(["search", segment, "manifest.json"]) == .search(text))
        }
        #expect(PresentationTarget.parse(["run", "x", "01", "manifest.json"]) == nil, "one spelling per index")
        // A run's result file with pages: the Collection of them, page 2 on, and no page 1 or 0 by number.
        for target in [PresentationTarget.runFile("x", 3), .runFilePages("x", 3), .runFilePage("x", 3, 2)] {
            #expect(PresentationTarget.parse(target.path.split(separator: "/").map(String.init)) == target, "\(target.path)")
        }
        #expect(PresentationTarget.parse(["run", "x", "3", "1", "manifest.json"]) == nil, "page 1 is the file's manifest.json")
        #expect(PresentationTarget.parse(["run", "x", "3", "02", "manifest.json"]) == nil)
    }

    @Test func theServersDocumentsPassIIIFPrezi3AndTheirServicesResolve() async throws {
        let fixture = try await ServerFixture.get()
        let cache = try fixture.copyOfCache()
        defer { try? FileManager.default.removeItem(at: cache) }
        try addSearchRun(to: cache)
        var configuration = TileServerConfiguration(cacheRoot: cache)
        configuration.port = 0
        configuration.buildsPacks = false
        try await withServer(try await TileServer.start(configuration, executor: ServerThreads.shared)) { (server: TileServer) async throws in
            let report = try await check(["\(server.baseURL)/iiif/presentation/collection.json"])
            #expect(report["errors"] as? [String] == [])
            // The search, two runs of the fixture and the search's run: 1 + 3 Collections.
            #expect(report["collections"] as? Int == 4 && (report["manifests"] as? Int ?? 0) >= 4)
            #expect((report["services"] as? Int ?? 0) >= 4)
            // Each kind of Manifest, not only those the Collection lists.
            for path in ["hashtag/zoom", "user/bob", "search/~I3pvb20"] {
                let one = try await check(["\(server.baseURL)/iiif/presentation/\(path)/manifest.json"], kind: "Manifest")
                #expect(one["errors"] as? [String] == [], "\(path)")
            }
        }
    }

    @Test func theExportWritesTheSameDocumentsForStaticHosting() async throws {
        let fixture = try await ServerFixture.get()
        let cache = try fixture.copyOfCache()
        let site = FileManager.default.temporaryDirectory.appendingPathComponent("tc-site-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: cache)
            try? FileManager.default.removeItem(at: site)
        }
        try addSearchRun(to: cache)
        let snapshot = try CacheSnapshot(root: cache)
        var media = Exporter.Options(out: site.appendingPathComponent("media"))
        media.tiles = [.iiif3]
        media.iiifBase = "https://archive.example/media/iiif/3"
        _ = try Exporter(snapshot: snapshot, options: media).run()
        let written = try PresentationExporter(snapshot: snapshot, options: .init(
            out: site.appendingPathComponent("presentation"), base: "https://archive.example/presentation",
            imageService: "https://archive.example/media/iiif/3")).run()
        #expect(written.contains("collection.json") && written.contains("hashtag/zoom/manifest.json")
                && written.contains("search/~I3pvb20/manifest.json"))
        #expect(written.contains { $0.hasPrefix("thumb/") })
        let tag = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf:
            site.appendingPathComponent("presentation/hashtag/zoom/manifest.json"))) as? [String: Any])
        #expect(tag["id"] as? String == "https://archive.example/presentation/hashtag/zoom/manifest.json")
        let report = try await check(["--map", "https://archive.example/=\(site.path)",
                                      "https://archive.example/presentation/collection.json"])
        #expect(report["errors"] as? [String] == [])
        #expect((report["services"] as? Int ?? 0) >= 4 && (report["thumbnails"] as? Int ?? 0) >= 4)
    }

    // MARK: - Helpers

    /// A third run in `cache`: the fixture's first run again, as the result of the search `#zoom`.
    func addSearchRun(to cache: URL) throws {
        let folder = cache.appendingPathComponent("manifests")
        let first = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().first)
        var manifest = try #require(try JSONSerialization.jsonObject(with: manifestJSON(folder.appendingPathComponent(first))) as? [String: Any])
        manifest["generated_at"] = "2099-01-01T00:00:00Z"
        manifest["sources"] = (manifest["sources"] as? [[String: Any]] ?? []).map { var s = $0; s["query"] = "#zoom"; return s }
        manifest["tweets"] = (manifest["tweets"] as? [[String: Any]] ?? []).map { var t = $0; t["query"] = "#zoom"; return t }
        try JSONSerialization.data(withJSONObject: manifest).write(to: folder.appendingPathComponent("20990101T000000Z.json"))
    }

    /// Runs scripts/iiif-presentation-check.py (iiif-prezi3; `scripts/test.sh` installs it).
    func check(_ arguments: [String], kind: String = "Collection") async throws -> [String: Any] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/iiif-presentation-check.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + (kind == "Manifest" ? ["--manifest"] : []) + arguments
        let output = Pipe()
        process.standardOutput = output
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let (data, problem) = try await onOwnThread {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            let problem = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (data, problem)
        }
        let report = try #require(try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                                  "the checker printed no report: \(String(decoding: problem, as: UTF8.self))")
        #expect(process.terminationStatus == 0, "\(report["errors"] ?? "")")
        return report
    }
}

import Catalog
import Foundation
import Testing
import TestSupport

/// A run repeated over the same posts: its manifest names the earlier run's frames,
/// `tweetcache manifest` reads it as JSON (or writes it whole, compressed), and
/// `forget` leaves every run readable and the post in none.
@Suite struct ManifestCommandTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    func manifests(_ cache: URL) throws -> [URL] {
        let folder = cache.appendingPathComponent("manifests")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json.zst") }
            .sorted().map { folder.appendingPathComponent($0) }
    }

    func tweets(_ json: Data) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        return try #require(object["tweets"] as? [[String: Any]])
    }

    /// A cache where the built-in sample ran twice, and its two manifests. The posts are
    /// what these tests read: the photos are drawn at a quarter of their size.
    func twoDemoRuns() async throws -> (cache: URL, files: [URL]) {
        let cache = try tempDir().appendingPathComponent("cache")
        for _ in 0..<2 {
            let out = try await CommandRunner.run(bin, ["demo", "--cache", cache.path, "--quiet"],
                                                  environment: smallDemo)
            #expect(out.status == 0, "\(out.stderr)")
        }
        let files = try manifests(cache)
        try #require(files.count == 2)
        return (cache, files)
    }

    @Test func aRepeatedRunIsSmallAndReadsAsTheFirstDid() async throws {
        let (cache, files) = try await twoDemoRuns()
        let sizes = try files.map { try FileManager.default.attributesOfItem(atPath: $0.path)[.size] as! Int }
        #expect(sizes[1] < sizes[0] / 2, "\(sizes)")

        // The newest by default, a stamp's start, a path: the same JSON every reader sees.
        let newest = try await CommandRunner.run(bin, ["manifest", "--cache", cache.path])
        #expect(newest.status == 0, "\(newest.stderr)")
        #expect(Data(newest.stdout.utf8) == (try manifestJSON(files[1])))
        let stamp = String(files[0].lastPathComponent.dropLast(".json.zst".count))
        let first = try await CommandRunner.run(bin, ["manifest", stamp, "--cache", cache.path])
        #expect(first.status == 0, "\(first.stderr)")
        let ids = { (rows: [[String: Any]]) in rows.compactMap { $0["id"] as? String } }
        let firstTweets = try tweets(Data(first.stdout.utf8)), secondTweets = try tweets(Data(newest.stdout.utf8))
        #expect(!firstTweets.isEmpty)
        #expect(ids(firstTweets) == ids(secondTweets))
        let byPath = try await CommandRunner.run(bin, ["manifest", files[1].path])
        #expect(byPath.stdout == newest.stdout)

        // Written whole and compressed: plain zstd reads it.
        let copy = cache.deletingLastPathComponent().appendingPathComponent("whole.json.zst")
        let arguments = ["manifest", "--zst", "--cache", cache.path]
        CommandRunner.record(bin, arguments)
        let shell = try await CommandRunner.run(URL(fileURLWithPath: "/bin/sh"),
                                                ["-c", "\"$0\" \"$@\" > '\(copy.path)'", bin.path] + arguments)
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(try SeekableZstd.decompress(try Data(contentsOf: copy)) == (try manifestJSON(files[1])))
        // Unknown runs are said so.
        let missing = try await CommandRunner.run(bin, ["manifest", "1999", "--cache", cache.path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no run 1999"))
    }

    @Test func forgettingAPostBothRunsHoldLeavesBothReadableWithoutIt() async throws {
        let (cache, files) = try await twoDemoRuns()
        let before = try tweets(try manifestJSON(files[0]))
        // A post in the middle whose text no other post repeats.
        let texts = before.compactMap { $0["text"] as? String }
        let middle = try #require((before.count / 2..<before.count).first { i in
            texts.filter { $0 == before[i]["text"] as? String }.count == 1 && (before[i]["text"] as? String)?.count ?? 0 > 20
        })
        let victim = try #require(before[middle]["id"] as? String)
        let text = try #require(before[middle]["text"] as? String)
        let forgot = try await CommandRunner.run(bin, ["forget", victim, "--cache", cache.path, "--json"])
        #expect(forgot.status == 0, "\(forgot.stderr)")
        for file in files {
            let after = try tweets(try manifestJSON(file))
            #expect(after.count == before.count - 1, "\(file.lastPathComponent)")
            #expect(!after.contains { $0["id"] as? String == victim })
        }
        let manifestsFolder = cache.appendingPathComponent("manifests")
        #expect(filesHolding(text, under: manifestsFolder).isEmpty, "\(filesHolding(text, under: manifestsFolder))")
        // The second still names the first where the post was not.
        let second = try #require(FileHandle(forReadingAtPath: files[1].path))
        defer { try? second.close() }
        let named = try SeekableZstdFile(descriptor: second.fileDescriptor, directory: files[1].deletingLastPathComponent().path)
        #expect(try named.holderNames() == [files[0].lastPathComponent])
        // Then the last post: the comma after the post before it goes, wherever it is.
        let last = try #require(before.last?["id"] as? String)
        let again = try await CommandRunner.run(bin, ["forget", last, "--cache", cache.path, "--json"])
        #expect(again.status == 0, "\(again.stdout) \(again.stderr)")
        for file in files {
            let after = try tweets(try manifestJSON(file))
            #expect(after.count == before.count - 2, "\(file.lastPathComponent)")
        }
        let verify = try await CommandRunner.run(bin, ["verify", "--cache", cache.path, "--json"])
        #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
    }
}

import Foundation
import Imaging
import Testing
import TestSupport

/// `dupes`, `match`, `pdq` and `info`'s near duplicates, as processes, over a cache that
/// `fetch` made from three posts of one picture: the first, a smaller re-encoded copy,
/// and a mirrored copy.
@Suite struct DuplicateCommandTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    func run(_ args: [String], cache: URL) async throws -> CommandOutput {
        try await CommandRunner.run(bin, args + ["--cache", cache.path], environment: ["NO_COLOR": ""])
    }

    /// Blobs of colour on waves and a gradient: a picture whose hash survives scaling.
    static func picture(width: Int, height: Int, mirrored: Bool = false) throws -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                var u = Double(x) / Double(width)
                let v = Double(y) / Double(height)
                if mirrored { u = 1 - u }
                // Waves across the picture: edges enough for PDQ's quality to pass 50.
                let wave = 45 * sin(2 * Double.pi * 7 * u) * cos(2 * Double.pi * 5 * v)
                var pixel = [70 + 150 * v + wave, 100 + 90 * u - wave, 180 - 120 * v + wave]
                if (u - 0.3) * (u - 0.3) + (v - 0.4) * (v - 0.4) < 0.04 { pixel = [230, 50, 40] }
                if (u - 0.72) * (u - 0.72) + (v - 0.65) * (v - 0.65) < 0.03 { pixel = [30, 190, 80] }
                if u > 0.55 && u < 0.9 && v > 0.1 && v < 0.3 { pixel = [20, 40, 200] }
                for k in 0..<3 { bytes[(y * width + x) * 3 + k] = UInt8(max(0, min(255, pixel[k]))) }
            }
        }
        return try PixelBuffer(width: width, height: height, channels: 3, bytes: bytes)
    }

    static func post(_ id: String, _ user: String, _ day: Int, _ media: String) -> String {
        """
        {"id_str":"\(id)","created_at":"Wed Oct \(day) 20:19:24 +0000 2018","full_text":"look",
         "extended_entities":{"media":[{"id_str":"m\(id)","type":"photo","media_url_https":"https://pbs.twimg.com/media/\(media).jpg"}]},
         "user":{"id_str":"u\(user)","screen_name":"\(user)","name":"\(user)"}}
        """
    }

    @Test func findsTheRepostsAndMatchesAList() async throws {
        let first = try JPEGEncoder.encode(Self.picture(width: 800, height: 600), quality: 92)
        let smaller = try JPEGEncoder.encode(Self.picture(width: 400, height: 300), quality: 60)
        let mirrored = try JPEGEncoder.encode(Self.picture(width: 800, height: 600, mirrored: true), quality: 85)
        let origin = try LoopbackHTTPServer { req in
            req.path.contains("First") ? .respond(status: 200, body: first)
                : req.path.contains("Smaller") ? .respond(status: 200, body: smaller)
                : req.path.contains("Mirrored") ? .respond(status: 200, body: mirrored) : .respond(status: 404)
        }
        defer { origin.stop() }
        let dir = try ScratchDirectory.make("tc-dupes-cli")
        let cache = dir.appendingPathComponent("cache")
        let page = dir.appendingPathComponent("page.json")
        let statuses = [Self.post("3", "carol", 12, "Mirrored"), Self.post("2", "bob", 11, "Smaller"), Self.post("1", "alice", 10, "First")]
        try Data("{\"statuses\":[\(statuses.joined(separator: ","))]}".utf8).write(to: page)
        let fetched = try await run(["fetch", page.path, "--quiet", "--mirror", "pbs.twimg.com=\(origin.baseURL)"], cache: cache)
        #expect(fetched.status == 0, "\(fetched.stderr)")

        // One group, the first post first, the mirrored copy found through its turned hash.
        let dupes = try await run(["dupes", "--json"], cache: cache)
        #expect(dupes.status == 0, "\(dupes.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(dupes.stdout.utf8)) as? [String: Any])
        #expect(report["total"] as? Int == 1)
        let images = try #require((report["groups"] as? [[String: Any]])?.first?["images"] as? [[String: Any]])
        #expect(images.map { ($0["posts"] as? [[String: Any]])?.first?["id"] as? String } == ["1", "2", "3"])
        #expect(images.last?["transform"] as? String == "mirrored left to right")
        let text = try await run(["dupes"], cache: cache)
        #expect(text.stdout.contains("first posted by @alice (x)"), "\(text.stdout)")

        // `pdq` prints the hash the manifest has, in the reference's format.
        let file = dir.appendingPathComponent("first.jpg")
        try Data(first).write(to: file)
        let hashed = try await CommandRunner.run(bin, ["pdq", file.path])
        let fields = hashed.stdout.trimmingCharacters(in: .newlines).split(separator: ",")
        #expect(fields.count == 3 && fields[0].count == 64 && fields[2] == Substring(file.path))
        let sha = try #require(images.first?["sha256"] as? String)
        let info = try #require(try JSONSerialization.jsonObject(with: Data(try await run(["info", sha, "--json"], cache: cache).stdout.utf8)) as? [String: Any])
        #expect(info["pdq"] as? String == String(fields[0]))
        #expect((info["near_duplicates"] as? [Any])?.count == 2)
        let post = try await run(["info", "2"], cache: cache)
        #expect(post.stdout.contains("near duplicates: 2 images in 2 posts"), "\(post.stdout)")

        // A list: its hash matches the first two (as posted; the mirror is a turned copy), a
        // stranger's matches nothing, a bad line is named.
        let list = dir.appendingPathComponent("list.csv")
        try Data("# shared list\n\(fields[0]),case 17\n\(String(repeating: "0f", count: 32))\nnot a hash\n".utf8).write(to: list)
        let matched = try await run(["match", list.path, "--json"], cache: cache)
        #expect(matched.status == 0, "\(matched.stderr)")
        #expect(matched.stderr.contains("list.csv:4: not a PDQ hash"))
        let results = try #require(try JSONSerialization.jsonObject(with: Data(matched.stdout.utf8)) as? [String: Any])
        #expect(results["hashes"] as? Int == 2 && results["matched"] as? Int == 1)
        let entry = try #require((results["results"] as? [[String: Any]])?.first)
        #expect(entry["label"] as? String == "case 17" && entry["line"] as? Int == 2)
        #expect((entry["matches"] as? [[String: Any]])?.count == 2)
        let stranger = dir.appendingPathComponent("stranger.txt")
        try Data((String(repeating: "0f", count: 32) + "\n").utf8).write(to: stranger)
        #expect(try await run(["match", stranger.path], cache: cache).status == 1)
    }
}

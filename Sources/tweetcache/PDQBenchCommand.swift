import ArgumentParser
import Catalog
import Demo
import Foundation
import Imaging
import MediaTypes
import TweetModel

/// Hidden: the PDQ scale benchmark's two halves (`bench/pdq-scale.sh`).
///
/// `--write DIR --count N` writes manifests of N posts, one photo each, every photo with
/// the PDQ signature of a distinct generated picture (64x64 scenes of gradients, noise
/// and shapes, hashed by the project's own hasher), 5% of them reposts of an earlier
/// picture (noise, a brightness shift, one in ten mirrored): a catalog of a million
/// hashes without a million image files. `--query CACHE` builds the catalog's index and
/// times near-duplicate queries of its photos (dihedral hashes included).
struct PDQBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-pdq", abstract: "PDQ scale benchmark helper.", shouldDisplay: false)

    @Option(name: .long) var write: String?
    @Option(name: .long) var count: Int = 1_000_000
    @Option(name: .long) var perRun: Int = 100_000
    @Option(name: .long) var query: String?
    @Option(name: .long) var queries: Int = 1_000

    func run() throws {
        if let write { try writeCorpus(URL(fileURLWithPath: write, isDirectory: true)) }
        if let query { try timeQueries(URL(fileURLWithPath: query, isDirectory: true)) }
    }

    // MARK: - Corpus

    /// A 64x64 scene from `seed` (as RGB floats, 0...255).
    static func scene(seed: UInt64) -> [Double] {
        var r = SplitMix64(seed: seed)
        var pixels = [Double](repeating: 0, count: 64 * 64 * 3)
        let top = (0..<3).map { _ in r.unit() * 255 }, bottom = (0..<3).map { _ in r.unit() * 255 }
        for (cells, amplitude) in [(3, 90.0), (7, 45.0), (15, 20.0)] {
            let grid = (0..<((cells + 1) * (cells + 1))).map { _ in r.unit() - 0.5 }
            let tint = (0..<3).map { _ in r.unit() + 0.5 }
            for y in 0..<64 {
                for x in 0..<64 {
                    let fy = Double(y) * Double(cells) / 64, fx = Double(x) * Double(cells) / 64
                    let y0 = Int(fy), x0 = Int(fx)
                    let ty = fy - Double(y0), tx = fx - Double(x0)
                    let a = grid[y0 * (cells + 1) + x0], b = grid[y0 * (cells + 1) + x0 + 1]
                    let c = grid[(y0 + 1) * (cells + 1) + x0], d = grid[(y0 + 1) * (cells + 1) + x0 + 1]
                    let v = (a * (1 - tx) + b * tx) * (1 - ty) + (c * (1 - tx) + d * tx) * ty
                    for k in 0..<3 { pixels[(y * 64 + x) * 3 + k] += v * amplitude * tint[k] }
                }
            }
        }
        for y in 0..<64 {
            let t = Double(y) / 63
            for x in 0..<64 { for k in 0..<3 { pixels[(y * 64 + x) * 3 + k] += top[k] * (1 - t) + bottom[k] * t } }
        }
        for _ in 0..<(3 + r.below(6)) {
            let x0 = r.below(64), y0 = r.below(64), w = 6 + r.below(28), h = 6 + r.below(28)
            let colour = (0..<3).map { _ in r.unit() * 255 }
            let round = r.below(2) == 0
            for y in y0..<min(64, y0 + h) {
                for x in x0..<min(64, x0 + w) {
                    if round {
                        let dx = (Double(x - x0) + 0.5) / Double(w) - 0.5, dy = (Double(y - y0) + 0.5) / Double(h) - 0.5
                        if dx * dx + dy * dy > 0.25 { continue }
                    }
                    for k in 0..<3 { pixels[(y * 64 + x) * 3 + k] = colour[k] }
                }
            }
        }
        return pixels
    }

    static func buffer(_ pixels: [Double]) -> PixelBuffer {
        try! PixelBuffer(width: 64, height: 64, channels: 3, bytes: pixels.map { UInt8(max(0, min(255, $0.rounded()))) })
    }

    /// A repost: grain, a brightness shift, sometimes mirrored.
    static func repost(_ pixels: [Double], seed: UInt64) -> [Double] {
        var r = SplitMix64(seed: seed)
        let shift = r.unit() * 20 - 10
        let mirrored = r.below(10) == 0
        var out = pixels
        for y in 0..<64 {
            for x in 0..<64 {
                let sx = mirrored ? 63 - x : x
                for k in 0..<3 { out[(y * 64 + x) * 3 + k] = pixels[(y * 64 + sx) * 3 + k] + shift + (r.unit() - 0.5) * 12 }
            }
        }
        return out
    }

    /// The corpus's made-up blob hash of photo `n`: its number first, so listings tell them apart.
    static func sha(_ n: Int) -> String { String(format: "%016llx", n) + String(repeating: "0", count: 48) }

    func writeCorpus(_ root: URL) throws {
        let manifests = root.appendingPathComponent("manifests", isDirectory: true)
        try FileManager.default.createDirectory(at: manifests, withIntermediateDirectories: true)
        let count = self.count, perRun = self.perRun
        // Signatures, computed on every core in slices.
        let slices = ParallelSlices.split(0..<count, parts: ProcessInfo.processInfo.activeProcessorCount)
        let signatures = ParallelSlices.map(slices.count) { lane in
            slices[lane].map { i -> PDQSignature in
                var r = SplitMix64(seed: UInt64(i) &* 31 &+ 7)
                // 5% reposts of an earlier picture.
                let pixels: [Double]
                if i > 100, r.below(20) == 0 {
                    let source = r.below(i)
                    pixels = Self.repost(Self.scene(seed: UInt64(source)), seed: r.next())
                } else {
                    pixels = Self.scene(seed: UInt64(i))
                }
                return PDQHasher.signature(of: Self.buffer(pixels))
            }
        }.flatMap { $0 }
        let networks = ["x", "mastodon", "bluesky"]
        let start = Date(timeIntervalSince1970: 1_704_067_200)
        var run = 0
        var written = 0
        while written < count {
            let n = min(perRun, count - written)
            let writer = try ManifestStreamWriter(directory: manifests, generatedAt: start.addingTimeInterval(Double(run) * 86_400),
                                                  tool: "tweetcache bench-pdq", cacheRoot: root.path)
            for i in written..<(written + n) {
                let sha = Self.sha(i + 1)
                let signature = signatures[i]
                var media = ManifestTweet.Media(id: "m\(i)", type: "photo", url: "https://example.com/p/\(i).jpg", sha256: sha,
                                                bytes: 40_000, contentType: "image/jpeg", width: 1200, height: 900)
                media.pdq = signature.hash.hex
                media.pdqQuality = signature.quality
                media.pdqDihedral = signature.dihedral.dropFirst().map(\.hex)
                let user = "u\(i % 20_000)"
                var post = ManifestTweet(
                    id: "\(1_000_000_000 + i)", createdAt: start.addingTimeInterval(Double(i) * 30), text: "photo \(i)", lang: "en",
                    author: .init(id: user, screenName: user, name: user, avatar: nil),
                    entities: .init(hashtags: [], cashtags: [], mentions: [], urls: [], media: []), media: [media], referencedTweets: [],
                    query: "#bench", sourceFormat: "v2", source: "bench.json")
                post.network = networks[i % 3]
                try writer.append(post)
            }
            var summary = RunSummary()
            summary.tweets = n
            try writer.writeTail(sources: [.init(path: "bench.json", formats: ["v2"], query: "#bench", tweets: n, problems: [])],
                                 summary: summary)
            try writer.commit(to: manifests.appendingPathComponent(String(format: "bench-%04d.json.zst", run)))
            written += n
            run += 1
        }
        print("wrote \(count) posts with PDQ hashes in \(run) manifests under \(manifests.path)")
    }

    // MARK: - Queries

    func timeQueries(_ root: URL) throws {
        let catalog = try PostCatalog.open(cacheRoot: root).catalog
        let clock = ContinuousClock()
        var index: PostCatalog.PerceptualIndex? = nil
        let build = clock.measure { index = try? catalog.perceptualIndex() }
        guard let index else { throw ValidationError("could not build the index") }
        var r = SplitMix64(seed: 5)
        var times: [Double] = []
        var found = 0
        for _ in 0..<queries {
            let sha = Self.sha(1 + r.below(max(1, index.index.count)))
            let t = clock.measure { found += ((try? catalog.nearDuplicates(of: sha, in: index)) ?? []).count }
            times.append(Double(t.components.attoseconds) / 1e15 + Double(t.components.seconds) * 1000)
        }
        times.sort()
        func ms(_ q: Double) -> String { String(format: "%.2f", times[min(times.count - 1, Int(Double(times.count) * q))]) }
        print("index: \(index.index.count) hashes built in \(build); \(queries) queries: p50 \(ms(0.5)) ms, p99 \(ms(0.99)) ms, max \(ms(1.0)) ms; \(found) near duplicates found")
    }
}

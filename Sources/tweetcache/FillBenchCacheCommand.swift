import ArgumentParser
import BlobStore
import CacheCore
import Foundation

/// Hidden: fills a cache with N small generated blobs and their index rows, for
/// `bench/inspect-10k.sh` (verify and stats on a large cache without a network run).
struct FillBenchCacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-fill", abstract: "Fill a cache with generated blobs (benchmarks).", shouldDisplay: false)

    @OptionGroup var location: CacheOption
    @Option(name: .long) var count: Int = 10_000
    @Option(name: .long, help: "Bytes per blob.") var size: Int = 16_384

    func run() throws {
        let cache = try Cache.open(location.url)
        let store = cache.blobs, index = cache.index
        var urls: [URLRecord] = []
        var blobs: [BlobRecord] = []
        var bytes = [UInt8](repeating: 0, count: max(16, size))
        bytes[0] = 0xFF; bytes[1] = 0xD8; bytes[2] = 0xFF
        for i in 0..<count {
            var x = UInt64(i) &* 0x9E37_79B9_7F4A_7C15 &+ 1
            for j in stride(from: 8, to: bytes.count, by: 8) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17
                withUnsafeBytes(of: x) { raw in for k in 0..<min(8, bytes.count - j) { bytes[j + k] = raw[k] } }
            }
            let stored = try store.put(bytes)
            urls.append(URLRecord(url: "https://pbs.twimg.com/media/bench\(i).jpg", hash: stored.hash, size: stored.size,
                                  contentType: "image/jpeg", httpStatus: 200))
            blobs.append(BlobRecord(hash: stored.hash, size: stored.size, contentType: "image/jpeg"))
            if urls.count == 500 {
                try index.record(urls, blobs: blobs)
                urls = []
                blobs = []
            }
        }
        try index.record(urls, blobs: blobs)
        print("filled \(location.url.path) with \(count) blobs of \(size) bytes")
    }
}

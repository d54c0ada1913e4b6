import Foundation
import Synchronization

/// Encodes a manifest to the same bytes as ``ManifestWriter/encoder()`` would, on
/// every core.
///
/// A run's manifest lists every tweet: 10 MB of pretty-printed, key-sorted JSON for
/// 10,000 photos, which Foundation's encoder writes on one thread in ~180 ms, a
/// phase curl does not have. The tweet lists are cut into slices encoded at once and
/// spliced into the rest, each slice's lines indented one level deeper as they would
/// be in place (JSON strings hold no raw line breaks, so every line break is
/// structure). `ManifestEncodingTests` holds the bytes equal to the plain encoder's.
enum ManifestEncoding {
    /// Tweets below which one thread is as fast as splitting the work.
    static let parallelThreshold = 1_000

    static let markersKey = CodingUserInfoKey(rawValue: "tweetcache.manifest.markers")!

    /// Strings the manifest writes in place of its tweet lists.
    struct Markers: Sendable {
        var tweets: String?
        var includedTweets: String?
    }

    static func encode(_ manifest: Manifest, parallelThreshold: Int = parallelThreshold) throws -> Data {
        let count = manifest.tweets.count + manifest.includedTweets.count
        guard count >= parallelThreshold, ProcessInfo.processInfo.activeProcessorCount > 1 else {
            return try ManifestWriter.encoder().encode(manifest)
        }
        let token = UUID().uuidString
        let markers = Markers(
            tweets: manifest.tweets.isEmpty ? nil : "tweetcache-tweets-\(token)",
            includedTweets: manifest.includedTweets.isEmpty ? nil : "tweetcache-included-\(token)")
        let shellEncoder = ManifestWriter.encoder()
        shellEncoder.userInfo[markersKey] = markers
        var shell = manifest
        shell.tweets = []
        shell.includedTweets = []
        var document = try shellEncoder.encode(shell)
        for (list, marker) in [(manifest.tweets, markers.tweets), (manifest.includedTweets, markers.includedTweets)] {
            guard let marker else { continue }
            let placeholder = try ManifestWriter.encoder().encode(marker)
            guard let range = document.firstRange(of: placeholder) else {
                return try ManifestWriter.encoder().encode(manifest)
            }
            document.replaceSubrange(range, with: try encodeNested(list))
        }
        return document
    }

    /// `list` as the pretty encoder writes it one level deep (a top-level key's value).
    private static func encodeNested(_ list: [ManifestTweet]) throws -> Data {
        let wanted = min(list.count, max(2, ProcessInfo.processInfo.activeProcessorCount * 2))
        let per = (list.count + wanted - 1) / wanted
        let slices = (list.count + per - 1) / per  // every slice non-empty
        let parts = Mutex<[Int: Result<[UInt8], any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: slices) { i in
            let range = (i * per)..<min(list.count, (i + 1) * per)
            // "[\n  {...},\n  {...}\n]": brackets dropped, every line two spaces deeper.
            let result = Result { reindented(try ManifestWriter.encoder().encode(Array(list[range]))) }
            parts.withLock { $0[i] = result }
        }
        var out = Data("[".utf8)
        for i in 0..<slices {
            guard let part = try parts.withLock({ $0[i] })?.get() else { continue }
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: part)
        }
        out.append(contentsOf: "\n  ]".utf8)
        return out
    }

    /// The elements of an encoded top-level array, each line two spaces deeper.
    private static func reindented(_ array: Data) -> [UInt8] {
        array.withUnsafeBytes { raw -> [UInt8] in
            let bytes = raw.bindMemory(to: UInt8.self)
            // Between the opening "[" and the closing "\n]".
            guard bytes.count >= 3 else { return [] }
            let inner = bytes[1..<(bytes.count - 2)]
            var out: [UInt8] = []
            out.reserveCapacity(inner.count + inner.count / 16)
            var i = inner.startIndex
            while i < inner.endIndex {
                let byte = inner[i]
                out.append(byte)
                i += 1
                // An empty array's blank middle line stays blank, as the encoder writes it.
                if byte == 0x0A, i < inner.endIndex, inner[i] != 0x0A {
                    out.append(0x20)
                    out.append(0x20)
                }
            }
            return out
        }
    }
}

import Catalog
import BlobStore
import Foundation
import CacheCore

/// `tweetcache stats`: what the cache holds and what deduplication saved.
///
/// Sizes come from one pass over the shard directories (`stat`, no reading) and one
/// query per table, so a cache of 10,000 blobs answers in well under a second.
public struct CacheStats: Sendable, Codable, Equatable {
    public struct Largest: Sendable, Codable, Equatable {
        public var sha256: String
        public var bytes: Int
        public var kind: ImageKind
    }

    public var tweets: Int
    public var includedTweets: Int
    public var manifests: Int
    public var blobs: Int
    public var imagesByKind: [String: Int]
    /// Bytes of the blob files on disk, each stored once.
    public var bytesStored: Int
    /// What the manifests' references add up to, counting a shared avatar once per
    /// tweet: without content addressing this is what the cache would hold.
    public var bytesReferenced: Int
    public var bytesSavedByDeduplication: Int
    public var derivedFiles: Int
    public var derivedBytes: Int
    public var urls: Int
    public var largest: [Largest]
    public var failuresByReason: [String: Int]
    public var manifestProblems: [String]
    /// The cache's files by kind, counted as `stats --store` counts a bucket's objects.
    public var objects: ObjectTally

    enum CodingKeys: String, CodingKey {
        case tweets, manifests, blobs, urls, largest
        case includedTweets = "included_tweets"
        case imagesByKind = "images_by_kind"
        case bytesStored = "bytes_stored"
        case bytesReferenced = "bytes_referenced"
        case bytesSavedByDeduplication = "bytes_saved_by_deduplication"
        case derivedFiles = "derived_files"
        case derivedBytes = "derived_bytes"
        case failuresByReason = "failures_by_reason"
        case manifestProblems = "manifest_problems"
        case objects
    }

    public init(snapshot: CacheSnapshot, largestCount: Int = 5) throws(InspectError) {
        let uses: [String: (uses: Int, kind: ImageKind)]
        do {
            let totals = try snapshot.catalog.totals()
            tweets = totals.posts
            includedTweets = totals.includedPosts
            manifests = totals.runs
            manifestProblems = try snapshot.catalog.problems()
            uses = try snapshot.catalog.referenceSummary()
        } catch {
            throw .cache(error.description)
        }
        let layout = snapshot.store.layout
        var sizes: [(BlobHash, Int)] = []
        for hash in snapshot.store.allBlobs() {
            var info = stat()
            if stat(layout.path(CacheLayout.blob(hash)), &info) == 0 { sizes.append((hash, Int(info.st_size))) }
        }
        func kind(_ hash: BlobHash) -> ImageKind { uses[hash.hex]?.kind ?? .unreferenced }
        blobs = sizes.count
        bytesStored = sizes.reduce(0) { $0 + $1.1 }
        var byKind: [String: Int] = [:]
        for (hash, _) in sizes { byKind[kind(hash).rawValue, default: 0] += 1 }
        imagesByKind = byKind
        var referenced = 0, storedAndReferenced = 0
        for (hash, size) in sizes {
            guard let count = uses[hash.hex]?.uses else { continue }
            referenced += size * count
            storedAndReferenced += size
        }
        bytesReferenced = referenced
        bytesSavedByDeduplication = max(0, referenced - storedAndReferenced)
        largest = sizes.sorted { ($0.1, $1.0) > ($1.1, $0.0) }.prefix(largestCount)
            .map { Largest(sha256: $0.0.hex, bytes: $0.1, kind: kind($0.0)) }
        do {
            // The disk, not the index: the tile server's lazy packs have no rows.
            let derived = snapshot.store.allDerivedEntries()
            derivedFiles = derived.count
            derivedBytes = derived.reduce(0) { $0 + $1.bytes }
            // Counted from what was walked above, by kind: originals are known as such.
            var tally = ObjectTally(location: snapshot.root.path)
            for (_, size) in sizes { tally.add(.original, size: size) }
            for entry in derived { tally.add(entry.key?.kind, size: entry.bytes) }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: layout.manifestsURL.path)) ?? [] {
                tally.add(CacheLayout.manifest(name), size: 0)
            }
            objects = tally
            urls = try snapshot.index.urlCount()
            var reasons: [String: Int] = [:]
            for failure in try snapshot.index.allFailures() {
                // The same scriptable codes as the manifest's failures_by_reason where known.
                let key = failure.httpStatus.map { "http_\($0)" } ?? failure.reason
                reasons[key, default: 0] += 1
            }
            failuresByReason = reasons
        } catch {
            throw .cache(error.description)
        }
    }

    public func text(style: Style) -> String {
        var lines: [String] = []
        func row(_ label: String, _ value: String) {
            lines.append(style.paint(label.padding(toLength: 18, withPad: " ", startingAt: 0), .dim) + value)
        }
        row("tweets", "\(tweets) (+\(includedTweets) quoted/retweeted) in \(manifests) manifest\(manifests == 1 ? "" : "s")")
        let kinds = ImageKind.allCases.compactMap { k in imagesByKind[k.rawValue].map { "\($0) \(k.rawValue)" } }
        row("images", "\(blobs)" + (kinds.isEmpty ? "" : " (" + kinds.joined(separator: ", ") + ")"))
        row("urls", "\(urls)")
        row("stored", "\(ByteCount.format(bytesStored)) (\(bytesStored) bytes)")
        row("referenced", "\(ByteCount.format(bytesReferenced)); deduplication saved \(ByteCount.format(bytesSavedByDeduplication))")
        row("derived", "\(derivedFiles) files, \(ByteCount.format(derivedBytes))")
        if !largest.isEmpty {
            lines.append("Largest")
            lines += largest.map { "  \($0.sha256.prefix(12))  \(ByteCount.format($0.bytes).leftPadded(to: 9))  \($0.kind.rawValue)" }
        }
        if !failuresByReason.isEmpty {
            lines.append("Failures")
            lines += failuresByReason.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
                .map { "  \(String($0.value).leftPadded(to: 5))  \($0.key)" }
        }
        if !manifestProblems.isEmpty {
            lines.append(style.paint("Unreadable manifests", .warning))
            lines += manifestProblems.map { "  " + $0 }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

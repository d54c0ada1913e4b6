import Catalog
import BlobStore
import Foundation
import CacheCore

/// Turns what a person types (a tweet id, a hash prefix, a URL) into cached images.
public struct ImageResolver: Sendable {
    public enum Target: Sendable, Equatable {
        case tweet(ManifestTweet)
        case image(BlobHash)
    }

    /// Shortest hash prefix accepted: shorter ones match half the cache.
    public static let minimumPrefix = 4

    let snapshot: CacheSnapshot

    public init(snapshot: CacheSnapshot) { self.snapshot = snapshot }

    /// A tweet id known to the manifests wins over a hash prefix of the same digits;
    /// then URLs (as the index recorded them when fetched or synced), then hash prefixes.
    public func resolve(_ argument: String) throws(InspectError) -> Target {
        let text = argument.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw .invalid("empty argument: give a tweet id, a hash prefix or a URL") }
        if let tweet = try? snapshot.catalog.post(id: text) { return .tweet(tweet) }
        if text.contains("://") {
            if let record = try? snapshot.index.lookup(url: text) { return .image(record.hash) }
            throw .notFound("no cached image for \(text)")
        }
        let lower = text.lowercased()
        guard lower.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw .invalid("'\(text)' is not a tweet id, a hash prefix or a URL")
        }
        if lower.utf8.allSatisfy({ (48...57).contains($0) }), lower.count > 12 {
            throw .notFound("no tweet \(text) in the cache's manifests")
        }
        guard lower.count >= Self.minimumPrefix else {
            throw .invalid("hash prefix '\(text)' is too short: give at least \(Self.minimumPrefix) hex digits")
        }
        let matches = matching(prefix: lower)
        switch matches.count {
        case 0: throw .notFound("no image or tweet matches '\(text)'")
        case 1: return .image(matches[0])
        default: throw .ambiguous(prefix: text, candidates: matches.map(\.hex))
        }
    }

    /// Resolves to one image: a tweet's first photo (or poster, or avatar).
    public func resolveImage(_ argument: String) throws(InspectError) -> BlobHash {
        switch try resolve(argument) {
        case let .image(hash): return hash
        case let .tweet(tweet):
            let hashes = tweet.media.compactMap { $0.sha256 } + [tweet.author.avatar?.sha256].compactMap { $0 }
            guard let hash = hashes.lazy.compactMap({ BlobHash(hex: $0) }).first else {
                throw .notFound("tweet \(tweet.id) has no cached image")
            }
            return hash
        }
    }

    /// Blobs on disk or in the index whose hex starts with `prefix`. Walks only the
    /// one shard the prefix names.
    func matching(prefix: String) -> [BlobHash] {
        let directory = snapshot.store.layout.path("\(CacheLayout.blobsFolder)/\(prefix.prefix(2))")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var found = Set(names.filter { $0.hasPrefix(prefix) }.compactMap { BlobHash(hex: $0) })
        for hex in (try? snapshot.catalog.hashes(prefix: prefix)) ?? [] { if let hash = BlobHash(hex: hex) { found.insert(hash) } }
        if let records = try? snapshot.index.allBlobRecords() {
            for record in records where record.hash.hex.hasPrefix(prefix) { found.insert(record.hash) }
        }
        return found.sorted()
    }
}

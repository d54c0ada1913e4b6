import Catalog
import Foundation

/// Finds near-duplicates of cached photos for `info`, building the catalog's PDQ index
/// once, and only when a photo with a useful hash asks.
public final class DuplicateFinder: @unchecked Sendable {
    let catalog: PostCatalog
    let threshold: Int
    private var index: PostCatalog.PerceptualIndex?
    private let lock = NSLock()

    public init(catalog: PostCatalog, threshold: Int = PostCatalog.defaultPDQThreshold) {
        self.catalog = catalog
        self.threshold = threshold
    }

    /// Other photos within the threshold of `sha256`, nearest first; empty when it has no useful hash.
    public func nearDuplicates(of sha256: String) -> [NearDuplicate] {
        guard let signature = try? catalog.pdqSignature(of: sha256), signature.isUseful else { return [] }
        let index: PostCatalog.PerceptualIndex? = lock.withLock {
            if self.index == nil { self.index = try? catalog.perceptualIndex() }
            return self.index
        }
        guard let index else { return [] }
        return (try? catalog.nearDuplicates(of: sha256, threshold: threshold, in: index)) ?? []
    }

    /// "near duplicates: N images in M posts" (or nil when there are none).
    public static func summary(_ found: [NearDuplicate]) -> String? {
        guard !found.isEmpty else { return nil }
        let posts = Set(found.flatMap { $0.posts.map(\.id) }).count
        return "near duplicates: \(found.count) image\(found.count == 1 ? "" : "s") in \(posts) post\(posts == 1 ? "" : "s")"
    }

    /// One line per near-duplicate: hash prefix, distance, how it is turned, its first post.
    static func lines(_ found: [NearDuplicate], style: Style) -> [String] {
        found.map { d in
            var parts = [String(d.sha256.prefix(12)), "\(d.distance) bits"]
            if let transform = d.transform { parts.append(transform) }
            if let first = d.posts.first {
                let date = first.createdAt.map { " " + ISO8601DateFormatter.string(from: $0, timeZone: .gmt, formatOptions: [.withFullDate]) } ?? ""
                parts.append("first @\(TweetList.oneLine(first.screenName)) \(first.id)\(date) (\(first.network))")
            }
            if d.posts.count > 1 { parts.append("\(d.posts.count) posts") }
            return "  " + parts.joined(separator: "  ")
        }
    }
}

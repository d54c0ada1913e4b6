import Catalog
import BlobStore
import Foundation
import CacheCore

/// `tweetcache ls`: one line per cached image.
public struct ImageListing: Sendable {
    public enum Sort: String, Sendable, CaseIterable {
        /// Largest first.
        case size
        /// Newest first (when it entered the cache).
        case date
        /// By hash (the default: stable).
        case hash
    }

    public struct Row: Sendable, Codable, Equatable {
        public var sha256: String
        public var kind: ImageKind
        public var bytes: Int
        public var contentType: String?
        public var width: Int?
        public var height: Int?
        public var createdAt: Date?
        public var tweets: [String]
        public var users: [String]
        public var derived: Int

        enum CodingKeys: String, CodingKey {
            case sha256, kind, bytes, width, height, tweets, users, derived
            case contentType = "content_type"
            case createdAt = "created_at"
        }
    }

    public var rows: [Row]

    /// The images of the posts with `tag`, by `user` and holding the words of `text`
    /// (``PostFilter/text``), of `kind`; every cached image without a filter.
    public init(snapshot: CacheSnapshot, tag: String?, user: String?, text: String? = nil, kind: ImageKind?, sort: Sort) {
        let records = Dictionary(((try? snapshot.index.allBlobRecords()) ?? []).map { ($0.hash, $0) }) { a, _ in a }
        var hashes = Array(snapshot.store.allBlobs())
        let filter = PostFilter(tag: tag, user: user, text: text)
        if filter != .all {
            let used = (try? snapshot.catalog.hashes(filter)) ?? []
            hashes = hashes.filter { used.contains($0.hex) }
        }
        // Who uses each blob, from one pass over the catalog's references.
        var uses: [String: (kind: ImageKind, tweets: [String], users: [String])] = [:]
        let wanted = Set(hashes.map(\.hex))
        try? snapshot.catalog.forEachBlobUse { use in
            guard wanted.contains(use.sha256) else { return }
            var entry = uses[use.sha256] ?? (use.kind, [], [])
            entry.kind = min(entry.kind, use.kind)
            // A post's uses of one blob are adjacent (the order is by post, then slot).
            if entry.tweets.last != use.postID { entry.tweets.append(use.postID) }
            if !entry.users.contains(use.handle) { entry.users.append(use.handle) }
            uses[use.sha256] = entry
        }
        let derived = (try? snapshot.index.derived(for: hashes)) ?? [:]
        var rows: [Row] = []
        for hash in hashes {
            let use = uses[hash.hex]
            let k = use?.kind ?? .unreferenced
            if let kind, k != kind { continue }
            let record = records[hash]
            let size = record?.size
                ?? ((try? FileManager.default.attributesOfItem(atPath: snapshot.store.path(for: hash).path)[.size]) as? Int)
                ?? 0
            rows.append(Row(sha256: hash.hex, kind: k, bytes: size, contentType: record?.contentType,
                            width: record?.width, height: record?.height, createdAt: record?.createdAt,
                            tweets: use?.tweets ?? [], users: use?.users ?? [], derived: derived[hash]?.count ?? 0))
        }
        switch sort {
        case .size: rows.sort { ($0.bytes, $1.sha256) > ($1.bytes, $0.sha256) }
        case .date: rows.sort { ($0.createdAt ?? .distantPast, $1.sha256) > ($1.createdAt ?? .distantPast, $0.sha256) }
        case .hash: break
        }
        self.rows = rows
    }

    /// `<hash 12>  <kind>  <size>  <WxH>  @users  <n tweets>`
    public func text(style: Style) -> String {
        rows.map { row in
            let dims = row.width.flatMap { w in row.height.map { "\(w)x\($0)" } } ?? "-"
            let users = row.users.prefix(3).map { "@\($0)" }.joined(separator: ",") + (row.users.count > 3 ? ",…" : "")
            return [
                String(row.sha256.prefix(12)),
                row.kind.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0),
                ByteCount.format(row.bytes).leftPadded(to: 9),
                dims.padding(toLength: 11, withPad: " ", startingAt: 0),
                "\(row.tweets.count) tweet\(row.tweets.count == 1 ? "" : "s")".padding(toLength: 10, withPad: " ", startingAt: 0),
                style.paint(users, .mention),
            ].joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.map { $0 + "\n" }.joined()
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

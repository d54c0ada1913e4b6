import Foundation

extension Manifest {
    /// The search a source's pages came from (`tweetcache search`), kept in the
    /// manifest so that a later search of the same key asks only for what is newer.
    ///
    /// The manifest is the record: the catalog reads these into `searches`, rebuilt
    /// with it, and `sync` brings another machine's, so a search continues where any
    /// machine sharing the bucket left it. A search's state moves on only when a
    /// manifest holding its posts is written: a run killed before that leaves the
    /// state where it was, and the next search asks again.
    public struct SearchRecord: Codable, Sendable, Equatable {
        /// `v2`, `v1.1`, `mastodon` or `bluesky`.
        public var api: String
        /// The server asked (Mastodon instance, `--api-base`); empty for the network's own.
        public var base: String
        /// The query as the API was asked it.
        public var query: String
        /// The newest post held when the search ran, which it asked to be newer than.
        public var sinceID: String?
        public var sinceAt: Date?
        /// Whether the search's pages reach down to what was held (or nothing was):
        /// only then is its newest post where the next search may start.
        public var reached: Bool
        /// The newest post of the source (set by the run that reads it).
        public var newestID: String?
        public var newestAt: Date?

        public init(api: String, base: String, query: String, sinceID: String? = nil, sinceAt: Date? = nil,
                    reached: Bool, newestID: String? = nil, newestAt: Date? = nil) {
            (self.api, self.base, self.query, self.sinceID, self.sinceAt) = (api, base, query, sinceID, sinceAt)
            (self.reached, self.newestID, self.newestAt) = (reached, newestID, newestAt)
        }

        /// One string for the key (api, base, query), as the catalog keeps it.
        public var key: String { Self.key(api: api, base: base, query: query) }

        public static func key(api: String, base: String, query: String) -> String {
            "\(api)\u{1F}\(base)\u{1F}\(query)"
        }

        enum CodingKeys: String, CodingKey {
            case api, base, query, reached
            case sinceID = "since_id", sinceAt = "since_at", newestID = "newest_id", newestAt = "newest_at"
        }
    }
}

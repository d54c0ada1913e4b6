import BlobStore
import Catalog
import Foundation
import LiveSearch
import Hummingbird
import CacheCore
import TweetModel

/// The viewer page, its assets, and the JSON it reads (`/api/tweets`).
extension TileResponder {
    func viewer(_ route: Route) async throws -> Reply {
        switch route {
        case .viewerIndex:
            return Self.page(ViewerAssets.index)
        case .viewerZoom(let hash):
            // The page reads the hash from its own path. For an image the cache does
            // not hold, the status says 404 and the page says why.
            var reply = Self.page(ViewerAssets.zoom)
            do {
                // A pack says the image is there without reading the original (from a bucket, whole).
                if try await packs.pack(hash) == nil { _ = try await sources.facts(hash) }
            } catch let failure where failure.status == 503 {
                throw failure  // the store did not answer: not "no such image"
            } catch {
                reply.status = .notFound
                reply.etag = nil
            }
            return reply
        case .viewerAsset(let name):
            guard let asset = ViewerAssets.named(name) else { throw HTTPFailure.notFound() }
            return Self.page(asset)
        default:
            throw HTTPFailure.notFound()
        }
    }

    /// A compiled-in page, validated by the hash of its content (made once).
    static func page(_ asset: ViewerAssets.Asset) -> Reply {
        var reply = Reply(body: asset.body, contentType: asset.contentType, etag: asset.etag, cacheControl: Reply.revalidate)
        reply.headers[.contentSecurityPolicy] =
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'"
        return reply
    }

    /// `/api/history`: the last 100 searches, newest first, without duplicates: the
    /// history `tweetcache history` shows (the file `search` and `fetch` keep). A
    /// damaged file reads as none rather than failing the page. Read like every file the
    /// server serves: below the cache root, no symbolic links, bounded.
    func apiHistory() throws -> Reply {
        let bytes = try? files.read("history.json", limit: 4 << 20)
        let entries = bytes.flatMap { try? SearchHistory.entries(in: Data($0)) } ?? []
        let feed = HistoryFeed(searches: entries.prefix(SearchHistory.limit).map { entry in
            .init(query: entry.query, network: entry.network, at: entry.at, tweets: entry.tweets)
        }, liveSearch: liveSearches != nil)
        return try Self.json(feed)
    }

    /// `/api/tweets?tag=&user=&q=&limit=&cursor=`: the cached posts, newest first, a
    /// page at a time (100 unless `limit` says, at most 1,000), with `next`, the
    /// cursor of the page after, while there is one. The first page also carries the
    /// total and the tags and users to filter by. `?id=` answers the one post with
    /// that id (included ones too), for a detail view opened by its URL.
    ///
    /// Every part is an indexed query of the catalog: `q` is full-text search (each
    /// word, as a word or the start of one, in the text, the author's name or handle,
    /// or the hashtags), the facets are counts kept as runs come in.
    func apiTweets(_ request: Request) throws -> Reply {
        let query = request.uri.queryParameters
        func parameter(_ name: String) -> String? {
            query[Substring(name)].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        }
        let limit = parameter("limit").flatMap { Int($0) }.map { min(max($0, 1), 1000) } ?? 100
        let cursor = try parameter("cursor").map { text throws(RouteError) in try TweetCursor(text: text) }
        let catalog = try postCatalog()
        var feed = TweetFeed(now: configuration.clock.now(), total: 0, tweets: [], next: nil, tags: nil, users: nil)
        if let id = parameter("id") {
            feed.tweets = try Self.answering { try catalog.post(id: id) }.map { [FeedPost($0)] } ?? []
            feed.total = feed.tweets.count
            return try feed.reply()
        }
        let filter = PostFilter(tag: parameter("tag"), user: parameter("user"), text: parameter("q"))
        // One more than the page: whether there is a next page, without counting again.
        let page: [ManifestTweet]
        if let cursor {
            page = try Self.answering { try catalog.posts(filter, after: cursor.key, limit: limit + 1) }
        } else {
            let first = try Self.answering { try catalog.firstPage(filter, limit: limit + 1) }
            page = first.posts
            feed.total = first.total
        }
        feed.tweets = page.prefix(limit).map(FeedPost.init)
        if page.count > limit, let last = page.prefix(limit).last { feed.next = TweetCursor(after: last).text }
        if cursor == nil {
            let facets = try Self.answering { try catalog.facets(limit: 50) }
            feed.tags = facets.tags.map { .init(tag: $0.tag, count: $0.posts) }
            feed.users = facets.users.map { .init(screenName: $0.handle, count: $0.posts) }
        }
        return try feed.reply()
    }

    /// `/api/duplicates/<sha256>?threshold=`: the cached photos within PDQ's match
    /// distance of this one (31 bits unless asked, at most 64), turned and mirrored copies
    /// included, nearest first, each with its posts earliest first: the viewer's "also
    /// posted in". An image without a hash (not a photo, not yet hashed, too flat) has none.
    func apiDuplicates(_ hash: BlobHash, _ request: Request) throws -> Reply {
        let threshold = request.uri.queryParameters["threshold"].flatMap { Int(String($0)) }
            .map { min(max($0, 0), 64) } ?? PostCatalog.defaultPDQThreshold
        let catalog = try postCatalog()
        let signature = try Self.answering { try catalog.pdqSignature(of: hash.hex) }
        var answer = DuplicatesFeed(sha256: hash.hex, pdq: signature?.hash.hex, pdqQuality: signature?.quality,
                                    threshold: threshold, nearDuplicates: [])
        if signature?.isUseful == true {
            let index = try Self.answering { try self.catalog.perceptualIndex(of: catalog) }
            answer.nearDuplicates = try Self.answering { try catalog.nearDuplicates(of: hash.hex, threshold: threshold, in: index) }
        }
        return try Self.json(answer)
    }

    static func json(_ value: some Encodable) throws -> Reply {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Reply(bytes: try encoder.encode(value), contentType: "application/json", etag: nil, cacheControl: "no-store")
    }
}

/// What `/api/duplicates/<sha256>` answers.
struct DuplicatesFeed: Encodable {
    var sha256: String
    var pdq: String?
    var pdqQuality: Int?
    var threshold: Int
    var nearDuplicates: [NearDuplicate]

    enum CodingKeys: String, CodingKey {
        case sha256, pdq, threshold
        case pdqQuality = "pdq_quality"
        case nearDuplicates = "near_duplicates"
    }
}

/// What `/api/tweets` returns; tweets are the manifest's own objects.
/// What `/api/history` answers. `liveSearch` says whether the server can run a search
/// itself (it was started with a token); without, the page filters the cached tweets.
struct HistoryFeed: Encodable {
    var searches: [Search]
    var liveSearch: Bool

    struct Search: Encodable {
        var query: String
        var network: String
        var at: Date
        var tweets: Int
    }
}

struct TweetFeed: Encodable {
    /// The server's clock, which the page's relative dates count from.
    var now: Date
    /// How many posts match: on the first page only (later pages carry 0).
    var total: Int
    /// Written by ``reply()``, not by `Encodable`.
    var tweets: [FeedPost]
    var next: String?
    var tags: [TagCount]?
    var users: [UserCount]?

    enum CodingKeys: String, CodingKey { case now, total, next, tags, users }

    /// The feed as one JSON object: its few small members through `JSONEncoder`, its
    /// posts written directly (``FeedPost/json()``), which took two thirds of the
    /// time of a page of 100 posts through the encoder.
    func reply() throws -> Reply {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.withoutEscapingSlashes]
        var bytes = [UInt8](try encoder.encode(self))
        bytes.removeLast()  // the object's `}`: the posts come before it
        bytes.append(contentsOf: #","tweets":["#.utf8)
        for (index, post) in tweets.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: post.json())
        }
        bytes.append(contentsOf: "]}".utf8)
        return Reply(bytes: bytes, contentType: "application/json", etag: nil, cacheControl: "no-store")
    }

    struct TagCount: Encodable {
        var tag: String
        var count: Int
    }

    struct UserCount: Encodable {
        var screenName: String
        var count: Int
        enum CodingKeys: String, CodingKey {
            case count
            case screenName = "screen_name"
        }
    }
}

/// A post as the viewer reads it: the manifest's own object, and its links, made by
/// ``Network`` (the page keeps no copy of each network's URL rules).
struct FeedPost {
    var post: ManifestTweet

    init(_ post: ManifestTweet) { self.post = post }

    /// The manifest's object of the post with `links` added: `post`, `profile` (each
    /// when the network has one) and `network_name`.
    func json() -> [UInt8] {
        let network = Network(manifestValue: post.network)
        let page = network?.postURL(id: post.id, handle: post.author.screenName, given: post.url)
        let profile = network?.profileURL(handle: post.author.screenName, postURL: page)
        return post.compactJSON(adding: "links", fields: [
            ("post", page), ("profile", profile), ("network_name", network?.displayName ?? post.network ?? "X"),
        ])
    }
}

/// 64-bit FNV-1a, for ETags of compiled-in text (not for anything adversarial).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x100_0000_01b3
        }
    }
}

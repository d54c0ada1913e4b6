import Foundation
import LiveSearch
import Hummingbird
import Pipeline

/// The viewer page, its assets, and the JSON it reads (`/api/tweets`).
extension TileResponder {
    func viewer(_ route: Route) throws -> Reply {
        switch route {
        case .viewerIndex:
            return Self.page(ViewerAssets.index)
        case .viewerZoom(let hash):
            // The page reads the hash from its own path. For an image the cache does
            // not hold, the status says 404 and the page says why.
            var reply = Self.page(ViewerAssets.zoom)
            do {
                _ = try sources.facts(hash)
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
            let network = switch entry.api {
            case "mastodon": "mastodon"
            case "bluesky": "bluesky"
            case SearchHistory.Entry.filesAPI: "files"
            default: "x"
            }
            return .init(query: entry.query, network: network, at: entry.at, tweets: entry.tweets)
        }, liveSearch: false)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Reply(bytes: try encoder.encode(feed), contentType: "application/json", etag: nil, cacheControl: "no-store")
    }

    /// `/api/tweets?tag=&user=&limit=`: the manifests' tweets, newest first, with
    /// the tags and users to filter by.
    func apiTweets(_ request: Request) throws -> Reply {
        let query = request.uri.queryParameters
        let tag = query["tag"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        let user = query["user"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        let limit = query["limit"].flatMap { Int($0) }.map { min(max($0, 1), 5000) } ?? 500
        let catalog = catalog.catalog
        let all = catalog.tweets
        var tagCounts: [String: (display: String, count: Int)] = [:]
        var userCounts: [String: (display: String, count: Int)] = [:]
        for tweet in all {
            for hashtag in tweet.entities.hashtags {
                tagCounts[hashtag.tag.lowercased(), default: (hashtag.tag, 0)].count += 1
            }
            userCounts[tweet.author.screenName.lowercased(), default: (tweet.author.screenName, 0)].count += 1
        }
        let matching = catalog.tweets(tag: tag, user: user)
        let feed = TweetFeed(
            now: Date(),
            total: matching.count,
            tweets: Array(matching.prefix(limit)),
            tags: tagCounts.values.sorted { ($1.count, $0.display) < ($0.count, $1.display) }.prefix(50)
                .map { .init(tag: $0.display, count: $0.count) },
            users: userCounts.values.sorted { ($1.count, $0.display) < ($0.count, $1.display) }.prefix(50)
                .map { .init(screenName: $0.display, count: $0.count) })
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Reply(bytes: try encoder.encode(feed), contentType: "application/json", etag: nil, cacheControl: "no-store")
    }
}

/// What `/api/tweets` returns; tweets are the manifest's own objects.
/// What `/api/history` answers. `liveSearch` says whether the server can run a search
/// itself (it cannot yet: the page filters the cached tweets instead).
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
    var now: Date
    var total: Int
    var tweets: [ManifestTweet]
    var tags: [TagCount]
    var users: [UserCount]

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

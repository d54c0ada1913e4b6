/// One JSON document, classified by its keys into the response shapes tools save.
///
/// Classification happens inside `Decodable` so the JSON is parsed once: the keyed
/// container is inspected, then the matching wire struct decodes from the same decoder.
/// Decoding never throws for a well-formed JSON document; shape errors become
/// ``malformed(_:_:)`` or ``unknown(_:)`` so they can be reported with their position.
enum WireDocument: Decodable {
    case v1Search(V1WireSearchPage)
    case premiumSearch(V1WirePremiumPage)
    case v1Timeline(LossyArray<V1WireTweet>)
    case v1Tweet(Lossy<V1WireTweet>)
    case v2Search(V2WireSearchPage)
    case v2Tweet(V2WireSingle)
    /// A bare v2 tweet object (no `data` wrapper), as twarc's flattened output writes.
    case v2BareTweet(Lossy<V2WireTweet>)
    case mastodonStatuses(LossyArray<MastodonWireStatus>)
    case mastodonSearch(MastodonWireSearch)
    case mastodonStatus(Lossy<MastodonWireStatus>)
    case blueskyPosts(BlueskyWirePosts)
    case blueskyFeed(BlueskyWireFeed)
    case blueskyPost(Lossy<BlueskyWirePost>)
    /// One feed item on its own (`app.bsky.feed.defs#feedViewPost`), as tools that save
    /// a feed a line at a time write it.
    case blueskyFeedItem(Lossy<BlueskyWireFeedItem>)
    /// A response that is only an error, e.g. rate limited or unauthorized.
    case apiErrors([V2WireError])
    /// Mastodon's and Bluesky's error body: `{"error": ..., "message": ...}`.
    case serviceError(String)
    /// Recognised, but the structure is broken (e.g. `statuses` is not an array).
    case malformed(SourceFormat, String)
    /// Valid JSON that is no response we know; the string says what was found.
    case unknown(String)

    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            // The first element tells Mastodon statuses from v1.1 tweets.
            let first = (try? array.nestedContainer(keyedBy: AnyKey.self)).map { Set($0.allKeys.map(\.stringValue)) }
            if let first, Self.isMastodonStatus(first) {
                self = Self.attempt(.mastodonStatuses, decoder) { .mastodonStatuses(try LossyArray(from: decoder)) }
            } else {
                self = Self.attempt(.v1Timeline, decoder) { .v1Timeline(try LossyArray(from: decoder)) }
            }
            return
        }
        guard let object = try? decoder.container(keyedBy: AnyKey.self) else {
            self = .unknown("a single JSON value where an object or an array was expected")
            return
        }
        let keys = Set(object.allKeys.map(\.stringValue))
        if keys.contains("statuses"), !keys.contains("search_metadata"),
           keys.contains("accounts") || keys.contains("hashtags") || Self.firstStatusIsMastodon(object) {
            self = Self.attempt(.mastodonSearch, decoder) { .mastodonSearch(try MastodonWireSearch(from: decoder)) }
        } else if Self.isMastodonStatus(keys) {
            self = .mastodonStatus(try Lossy(from: decoder))
        } else if keys.contains("posts") {
            self = Self.attempt(.blueskyPosts, decoder) { .blueskyPosts(try BlueskyWirePosts(from: decoder)) }
        } else if keys.contains("feed") {
            self = Self.attempt(.blueskyFeed, decoder) { .blueskyFeed(try BlueskyWireFeed(from: decoder)) }
        } else if keys.contains("uri"), keys.contains("record"), keys.contains("author") {
            self = .blueskyPost(try Lossy(from: decoder))
        } else if keys.contains("post"), keys.isSubset(of: ["post", "reason", "reply", "feedContext", "reqId", "$type"]) {
            self = .blueskyFeedItem(try Lossy(from: decoder))
        } else if keys.contains("statuses") {
            self = Self.attempt(.v1Search, decoder) { .v1Search(try V1WireSearchPage(from: decoder)) }
        } else if keys.contains("results") {
            self = Self.attempt(.premiumSearch, decoder) { .premiumSearch(try V1WirePremiumPage(from: decoder)) }
        } else if keys.contains("data") {
            let dataKey = AnyKey("data")
            let isSingle = (try? object.nestedContainer(keyedBy: AnyKey.self, forKey: dataKey)) != nil
            self = isSingle
                ? Self.attempt(.v2Tweet, decoder) { .v2Tweet(try V2WireSingle(from: decoder)) }
                : Self.attempt(.v2Search, decoder) { .v2Search(try V2WireSearchPage(from: decoder)) }
        } else if keys.contains("meta"), keys.isSubset(of: ["meta", "errors", "includes", "__twarc"]) {
            // A v2 search that matched nothing has no "data" at all. (A Mastodon media
            // attachment has a "meta" too, among keys no v2 page has.)
            self = Self.attempt(.v2Search, decoder) { .v2Search(try V2WireSearchPage(from: decoder)) }
        } else if keys.contains("id_str") || keys.contains("user") || keys.contains("full_text") {
            self = .v1Tweet(try Lossy(from: decoder))
        } else if keys.contains("id"), keys.contains("text") {
            self = .v2BareTweet(try Lossy(from: decoder))
        } else if keys.contains("errors") {
            let errors = (try? object.decode(LossyArray<V2WireError>.self, forKey: AnyKey("errors")))?.values
            self = .apiErrors(errors ?? [])
        } else if keys.contains("error"), keys.isSubset(of: ["error", "message", "error_description"]) {
            let error = try? object.decode(String.self, forKey: AnyKey("error"))
            let message = (try? object.decode(String.self, forKey: AnyKey("message")))
                ?? (try? object.decode(String.self, forKey: AnyKey("error_description")))
            self = .serviceError([error, message].compactMap { $0 }.joined(separator: ": "))
        } else if keys.contains("title"), keys.contains("detail") || keys.contains("type") {
            self = .apiErrors([(try? V2WireError(from: decoder))].compactMap { $0 })
        } else {
            let shown = keys.sorted().prefix(6).joined(separator: ", ")
            self = .unknown(keys.isEmpty ? "an empty object" : "an object with keys \(shown)\(keys.count > 6 ? ", …" : "")")
        }
    }

    /// A `statuses` array whose first element is a Mastodon status (a search saved without
    /// its `accounts` and `hashtags`).
    private static func firstStatusIsMastodon(_ object: KeyedDecodingContainer<AnyKey>) -> Bool {
        guard var list = try? object.nestedUnkeyedContainer(forKey: AnyKey("statuses")),
              let first = try? list.nestedContainer(keyedBy: AnyKey.self)
        else { return false }
        return isMastodonStatus(Set(first.allKeys.map(\.stringValue)))
    }

    /// A Mastodon status has an `account` and `content` (a reblog's is empty but present).
    private static func isMastodonStatus(_ keys: Set<String>) -> Bool {
        keys.contains("account") && (keys.contains("content") || keys.contains("reblog"))
    }

    private static func attempt(_ format: SourceFormat, _ decoder: any Decoder, _ body: () throws -> WireDocument) -> WireDocument {
        do {
            return try body()
        } catch {
            return .malformed(format, DecodingFailure.describe(error, droppingPrefix: decoder.codingPath.count))
        }
    }
}

/// A coding key for any string, used to look at a document's keys before decoding it.
struct AnyKey: CodingKey {
    let stringValue: String
    let intValue: Int? = nil

    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

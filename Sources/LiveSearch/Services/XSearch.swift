import Foundation
import HTTPTypes
import TweetModel

/// X's search: v2 recent search, or v1.1 `search/tweets` for apps with legacy access
/// and compatible proxies, with an app's bearer token.
///
/// v2 pages by the `next_token` in a page's `meta`; v1.1 by `max_id`, just below the
/// lowest id on the page, for as long as the page's `search_metadata` has `next_results`.
struct XSearch: SearchService {
    /// `.v2` or `.v1_1`.
    let version: SearchAPI
    let query: SearchQuery
    let token: BearerToken
    let base: ServiceURL

    init(version: SearchAPI, query: SearchQuery, token: BearerToken?, baseURL: String?) throws(LiveSearchError) {
        guard let token else { throw .missingToken }
        self.version = version
        self.query = query
        self.token = token
        base = try ServiceURL(baseURL ?? (version == .v1_1 ? "https://api.twitter.com" : "https://api.x.com"))
    }

    var network: Network { .x }
    var name: String { "the X API" }
    var endpointName: String { version.displayName }
    var pageSizes: ClosedRange<Int> { version == .v2 ? 10...100 : 1...100 }
    var pageFormats: Set<SourceFormat> { version == .v2 ? [.v2Search] : [.v1Search] }
    var rateLimitHeaders: RateLimitHeaders { .x }
    var credentialHeaders: HTTPFields { HTTPFields([token.authorizationHeader]) }

    /// The token from `--token-file` when one is given (an explicit choice beats the
    /// environment), else from `TWEETCACHE_BEARER_TOKEN`; X answers no search without.
    static func credentials(tokenFile: String?, environment: [String: String]) throws(LiveSearchError)
        -> SearchCredentials
    {
        SearchCredentials(token: try BearerToken.resolve(tokenFile: tokenFile, environment: environment))
    }

    /// The terms with the operator that leaves retweets out, unless retweets are wanted
    /// or the query already says something about them.
    var apiQuery: String {
        let lower = query.text.lowercased()
        let mentionsRetweets = lower.contains("is:retweet") || lower.contains("filter:retweets")
            || lower.contains("include:retweets") || lower.contains("filter:nativeretweets")
        guard !query.includeRetweets, !mentionsRetweets else { return query.terms }
        return "\(query.terms) \(version == .v2 ? "-is:retweet" : "-filter:retweets")"
    }

    /// v2 asks for what the pipeline reads: media, authors and the tweets a result quotes
    /// or retweets (their media belong to the result too), long posts' full text, and
    /// whether a post is marked sensitive (the viewer blurs its media, as X does).
    static let v2Fields: [(String, String)] = [
        ("expansions", "attachments.media_keys,author_id,referenced_tweets.id,referenced_tweets.id.author_id"),
        ("tweet.fields", "created_at,entities,attachments,author_id,lang,referenced_tweets,note_tweet,possibly_sensitive"),
        ("media.fields", "url,preview_image_url,width,height,variants,alt_text,type"),
        ("user.fields", "username,name,profile_image_url"),
    ]

    func pageURL(pageSize: Int, cursor: PageCursor?, since: SearchBoundary?) -> String {
        // Both versions take `since_id`: results newer than it only.
        let sinceID = since?.decimalID.map { [("since_id", $0.digits)] } ?? []
        if version == .v2 {
            var items = [("query", apiQuery), ("max_results", String(pageSize))] + Self.v2Fields + sinceID
            if case let .nextToken(token) = cursor { items.append(("next_token", token)) }
            return base.url("/2/tweets/search/recent", items)
        }
        // `recent` keeps results in id order, which max_id paging relies on.
        var items = [("q", apiQuery), ("count", String(pageSize)), ("tweet_mode", "extended"),
                     ("include_entities", "true"), ("result_type", "recent")]
        if case let .maxID(id) = cursor { items.append(("max_id", id.digits)) }
        return base.url("/1.1/search/tweets.json", items + sinceID)
    }

    func cursor(after page: ResultsPage) -> PageCursor? {
        guard let next = page.nextToken else { return nil }
        if version == .v2 { return .nextToken(next) }
        // v1.1's `next_results` holds a max_id too, but the lowest id on the page is
        // what the page proves; the next page ends just below it.
        return page.tweets.compactMap { DecimalID($0.id) }.min()?.predecessor().map(PageCursor.maxID)
    }

    func refusal(status: Int, detail: String?) -> LiveSearchError {
        switch status {
        case 401: .unauthorized(api: version, source: token.source, detail: detail)
        case 403: .forbidden(api: version, source: token.source, detail: detail)
        default: .rejected(service: name, status: status, detail: detail)
        }
    }
}

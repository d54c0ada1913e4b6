import Foundation

/// Builds the request URL of each page for one API at one base URL.
struct SearchEndpoint: Sendable {
    let api: SearchAPI
    /// Scheme, host and any path prefix, without a trailing slash.
    let base: String

    init(api: SearchAPI, baseURL: String?) throws(LiveSearchError) {
        if api == .mastodon, (baseURL ?? "").trimmingCharacters(in: .whitespaces).isEmpty { throw .missingInstance }
        let raw = (baseURL ?? api.defaultBaseURL).trimmingCharacters(in: .whitespaces)
        guard raw.utf8.count <= 2048, let comps = URLComponents(string: raw),
              let scheme = comps.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = comps.host, !host.isEmpty, comps.query == nil, comps.fragment == nil
        else { throw .invalidBaseURL(raw) }
        var base = raw
        while base.hasSuffix("/") { base.removeLast() }
        self.api = api
        self.base = base
    }

    /// v2 asks for what the pipeline reads: media, authors and the tweets a result quotes
    /// or retweets (their media belong to the result too), and long posts' full text.
    static let v2Fields: [(String, String)] = [
        ("expansions", "attachments.media_keys,author_id,referenced_tweets.id,referenced_tweets.id.author_id"),
        ("tweet.fields", "created_at,entities,attachments,author_id,lang,referenced_tweets,note_tweet"),
        ("media.fields", "url,preview_image_url,width,height,variants,alt_text,type"),
        ("user.fields", "username,name,profile_image_url"),
    ]

    func url(query: String, pageSize: Int, cursor: PageCursor?, mastodon: MastodonTarget? = nil) -> String {
        var items: [(String, String)]
        var path = api.path
        switch api {
        case .mastodon:
            items = [("limit", String(pageSize))]
            switch mastodon ?? .search(query) {
            case let .tag(tag):
                path = "/api/v1/timelines/tag/" + Self.encode(tag)
            case let .account(id):
                path = "/api/v1/accounts/" + Self.encode(id) + "/statuses"
                items.append(("exclude_reblogs", "true"))
            case let .search(text):
                items = [("q", text), ("type", "statuses"), ("resolve", "false")] + items
            }
            // Statuses come newest first; max_id asks for those older than it.
            if case let .olderThan(id) = cursor { items.append(("max_id", id)) }
        case .bluesky:
            items = [("q", query), ("limit", String(pageSize)), ("sort", "latest")]
            if case let .nextToken(token) = cursor { items.append(("cursor", token)) }
        case .v2:
            items = [("query", query), ("max_results", String(pageSize))] + Self.v2Fields
            if case let .nextToken(token) = cursor { items.append(("next_token", token)) }
        case .v1_1:
            // `recent` keeps results in id order, which max_id paging relies on.
            items = [("q", query), ("count", String(pageSize)), ("tweet_mode", "extended"),
                     ("include_entities", "true"), ("result_type", "recent")]
            if case let .maxID(id) = cursor { items.append(("max_id", id.digits)) }
        }
        return base + path + "?" + items.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
    }

    /// Mastodon's account lookup, which turns `user@host` into the id its timeline is read by.
    func lookupURL(acct: String) -> String {
        base + "/api/v1/accounts/lookup?acct=" + Self.encode(acct)
    }

    /// RFC 3986 unreserved characters pass; everything else (`#`, `:`, space, `+`, `&`)
    /// is percent-encoded, so a query can never change the URL's structure.
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// What a Mastodon search reads, decided by the query: a hashtag's public timeline, an
/// account's statuses (found by ``SearchQuery/mastodonAccount``), or a full-text search.
enum MastodonTarget: Sendable, Hashable {
    case tag(String)
    case account(id: String)
    case search(String)
}

import Foundation

/// Builds the request URL of each page for one API at one base URL.
struct SearchEndpoint: Sendable {
    let api: SearchAPI
    /// Scheme, host and any path prefix, without a trailing slash.
    let base: String

    init(api: SearchAPI, baseURL: String?) throws(LiveSearchError) {
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

    func url(query: String, pageSize: Int, cursor: PageCursor?) -> String {
        var items: [(String, String)]
        switch api {
        case .v2:
            items = [("query", query), ("max_results", String(pageSize))] + Self.v2Fields
            if case let .nextToken(token) = cursor { items.append(("next_token", token)) }
        case .v1_1:
            // `recent` keeps results in id order, which max_id paging relies on.
            items = [("q", query), ("count", String(pageSize)), ("tweet_mode", "extended"),
                     ("include_entities", "true"), ("result_type", "recent")]
            if case let .maxID(id) = cursor { items.append(("max_id", id.digits)) }
        }
        return base + api.path + "?" + items.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
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

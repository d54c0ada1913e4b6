import Foundation

/// What the user asked for, turned into the query each API understands.
///
/// The original app's search box took a hashtag or a user; anything else is passed
/// through as an API query so every operator stays available. Retweets are left out
/// unless asked for: they repeat media already in the results and crowd out new tweets.
public struct SearchQuery: Sendable, Hashable {
    /// As typed, trimmed.
    public let text: String
    public let includeRetweets: Bool

    public init(_ text: String, includeRetweets: Bool = false) throws(LiveSearchError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .emptyQuery }
        guard trimmed.unicodeScalars.count <= 1024 else { throw .queryTooLong(trimmed.unicodeScalars.count) }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .queryHasControlCharacters
        }
        self.text = trimmed
        self.includeRetweets = includeRetweets
    }

    /// The query without the retweet filter: `#ucd` stays `#ucd`, a lone `@name` becomes
    /// `from:name` (its author's tweets, not mentions of it), anything else is verbatim.
    public var terms: String {
        if text.hasPrefix("@") {
            let name = text.dropFirst()
            let isHandle = (1...15).contains(name.count) && name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
            }
            if isHandle { return "from:\(name)" }
        }
        return text
    }

    /// The query sent to `api`, with its retweet filter unless retweets are wanted or the
    /// query already says something about retweets.
    public func apiQuery(for api: SearchAPI) -> String {
        let lower = text.lowercased()
        let mentionsRetweets = lower.contains("is:retweet") || lower.contains("filter:retweets")
            || lower.contains("include:retweets") || lower.contains("filter:nativeretweets")
        if api == .bluesky, text.hasPrefix("@"), text.count > 1, !text.contains(" ") {
            // A lone handle (`@ana.bsky.social`) is that account's posts, as on X.
            return "from:\(text.dropFirst())"
        }
        guard api.isX else { return text }
        guard !includeRetweets, !mentionsRetweets else { return terms }
        return "\(terms) \(api.retweetFilter)"
    }

    /// A short, file-name-safe form of ``terms`` for saved pages: `#ucd` → `ucd`,
    /// `from:nasa` → `from-nasa`.
    public var slug: String {
        var out = ""
        for scalar in terms.unicodeScalars {
            let keep = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            if keep {
                out.unicodeScalars.append(scalar)
            } else if !out.isEmpty, out.last != "-" {
                out.append("-")
            }
            if out.count >= 40 { break }
        }
        while out.last == "-" { out.removeLast() }
        return out.isEmpty ? "query" : out
    }
}

extension SearchQuery {
    /// `#tag` on Mastodon: the tag's public timeline, no token needed.
    var mastodonTag: String? {
        guard text.hasPrefix("#") else { return nil }
        let tag = text.dropFirst()
        guard !tag.isEmpty, tag.unicodeScalars.count <= 100,
              tag.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" })
        else { return nil }
        return String(tag)
    }

    /// `@user` or `@user@host` on Mastodon: that account's statuses (looked up by `acct`).
    var mastodonAccount: String? {
        guard text.hasPrefix("@") else { return nil }
        let acct = text.dropFirst()
        let parts = acct.split(separator: "@", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty }), acct.utf8.count <= 300,
              acct.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
                  || "_.-@".unicodeScalars.contains($0)) })
        else { return nil }
        return String(acct)
    }
}

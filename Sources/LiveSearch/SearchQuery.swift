import Foundation

/// What the user asked for; each network's service turns it into the query its API understands.
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

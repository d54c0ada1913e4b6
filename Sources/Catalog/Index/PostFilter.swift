import Foundation

/// Which posts a list shows: every field set narrows it (all must hold).
public struct PostFilter: Sendable, Equatable {
    /// A hashtag or cashtag, with or without its `#`/`$`, any case.
    public var tag: String?
    /// The author's handle, with or without `@`, any case (not mentions: "posts by").
    public var user: String?
    /// Words to find in the text, the author's name or handle, or the hashtags:
    /// every word, in any order; the last as a word or the start of one, as it is
    /// being typed (full-text search).
    public var text: String?
    /// The search the post was fetched for, exactly (trimmed).
    public var query: String?
    /// Only posts with a photo the Image API can serve (IIIF Presentation's Canvases).
    public var withPhotos = false

    public init(tag: String? = nil, user: String? = nil, text: String? = nil, query: String? = nil) {
        self.tag = tag.map { Self.normalise($0, dropping: ["#", "$"]) }.flatMap { $0.isEmpty ? nil : $0 }
        self.user = user.map { Self.normalise($0, dropping: ["@"]) }.flatMap { $0.isEmpty ? nil : $0 }
        self.text = text.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        self.query = query.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    public static let all = PostFilter()

    /// Lower-cased, white space trimmed, leading `prefixes` dropped: how tags and
    /// handles are stored and compared.
    static func normalise(_ text: String, dropping prefixes: Set<Character>) -> String {
        var t = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        while let first = t.first, prefixes.contains(first) { t = t.dropFirst() }
        return t.lowercased()
    }

    /// The FTS5 query for ``text``: each word quoted, so no character a person types
    /// is FTS5 syntax, all required, the last a prefix (`"two" "wor"*`): one prefix
    /// only, since each expands to every indexed word it starts. Nil when no word has
    /// a letter or digit FTS5 would index.
    static func ftsQuery(_ text: String) -> String? {
        let words = text.split(whereSeparator: { $0.isWhitespace }).filter { word in
            word.unicodeScalars.contains { $0.properties.isAlphabetic || $0.properties.numericType != nil }
        }
        guard !words.isEmpty else { return nil }
        let quoted = words.prefix(16).map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        return quoted.joined(separator: " ") + "*"
    }
}

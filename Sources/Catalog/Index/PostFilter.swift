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

    /// The FTS5 query for ``text``: its words cut where FTS5's tokenizer cuts them
    /// (`e-mail` is `e` and `mail`), each quoted, so no character a person types is
    /// FTS5 syntax and no quoted string is a phrase (the index keeps no positions:
    /// `detail = none`), all required, the last a prefix (`"two" "wor"*`): one prefix
    /// only, since each expands to every indexed word it starts. Nil when no word has
    /// a character FTS5 would index.
    static func ftsQuery(_ text: String) -> String? {
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isTokenCharacter(scalar) {
                current.append(scalar)
            } else if !current.isEmpty {
                tokens.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { tokens.append(String(current)) }
        // A lone combining mark is no word.
        tokens.removeAll { token in token.unicodeScalars.allSatisfy { $0.properties.generalCategory == .nonspacingMark } }
        guard !tokens.isEmpty else { return nil }
        return tokens.prefix(16).map { "\"" + $0 + "\"" }.joined(separator: " ") + "*"
    }

    /// What the catalog's tokenizer (`unicode61 remove_diacritics 2`) keeps in a
    /// token: letters, numbers, private-use characters and combining marks (which it
    /// folds away); anything else separates tokens.
    static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .privateUse, .nonspacingMark:
            return true
        default:
            return false
        }
    }
}

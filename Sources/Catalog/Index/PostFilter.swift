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
        self.tag = tag.map { Self.normalise($0, dropping: Self.tagMarks) }.flatMap { $0.isEmpty ? nil : $0 }
        self.user = user.map { Self.normalise($0, dropping: Self.handleMark) }.flatMap { $0.isEmpty ? nil : $0 }
        self.text = text.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        self.query = query.map(Self.trimmed).flatMap { $0.isEmpty ? nil : $0 }
    }

    public static let all = PostFilter()

    /// What ``normalise(_:dropping:)`` drops before a tag (`#`, `$`) and a handle (`@`).
    static let tagMarks = "#$", handleMark = "@"

    /// Lower-cased, white space trimmed, leading characters of `prefixes` (ASCII)
    /// dropped: how tags and handles are stored and compared.
    ///
    /// ASCII text (nearly every handle and most tags) is done over its bytes: on Linux
    /// Foundation's trimming goes through `NSString`, and was a fifth of the time a
    /// reindex spends decoding posts (a handle and tags each, a million times).
    static func normalise(_ text: String, dropping prefixes: String) -> String {
        if let ascii = asciiNormalised(text, dropping: prefixes, lowering: true) { return ascii }
        var t = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        while let first = t.first, prefixes.contains(first) { t = t.dropFirst() }
        return t.lowercased()
    }

    /// White space trimmed, as Foundation trims it (ASCII text over its bytes).
    static func trimmed(_ text: String) -> String {
        asciiNormalised(text, dropping: "", lowering: false) ?? text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// ``normalise(_:dropping:)`` (or, not `lowering`, ``trimmed(_:)``) of ASCII
    /// text; nil for any other. In ASCII the white space Foundation trims is tab to
    /// carriage return and space, a character is one byte and lower-casing is A-Z.
    private static func asciiNormalised(_ text: String, dropping prefixes: String, lowering: Bool) -> String? {
        var text = text
        return text.withUTF8 { utf8 -> String? in
            guard !utf8.contains(where: { $0 >= 0x80 }) else { return nil }
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
            var start = 0, end = utf8.count
            while start < end, isSpace(utf8[start]) { start += 1 }
            while end > start, isSpace(utf8[end - 1]) { end -= 1 }
            while start < end, prefixes.utf8.contains(utf8[start]) { start += 1 }
            return String(unsafeUninitializedCapacity: end - start) { out in
                for k in start..<end {
                    let byte = utf8[k]
                    out[k - start] = lowering && (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
                }
                return end - start
            }
        }
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

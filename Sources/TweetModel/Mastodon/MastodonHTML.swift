/// A Mastodon status's `content` (HTML) as plain text, with its links as ranges of
/// that text, so hashtags, mentions and URLs become entities like X's.
///
/// Servers send the subset their sanitiser allows (`p`, `br`, `a`, `span` and a few
/// inline styles), but the bytes come from strangers and remote servers: this reads
/// any input without failing. Paragraphs become blank lines, `br` a line break, other
/// tags are dropped with their text kept, character references are decoded. The
/// hidden parts of a shortened link (`<span class="invisible">https://</span>`) are
/// kept, so the text holds the whole URL. Ranges count code points, like X's.
struct MastodonHTML {
    /// One `<a>` element: what its text covers, where it points, its classes.
    struct Link: Equatable {
        var range: TextRange
        var href: String?
        var classes: [Substring]
        var text: String

        var isHashtag: Bool { classes.contains("hashtag") }
        var isMention: Bool { !isHashtag && classes.contains("mention") }
    }

    private(set) var text = ""
    private(set) var links: [Link] = []
    private var count = 0
    private var open: [(start: Int, href: String?, classes: [Substring])] = []

    init(_ html: String) {
        // Scanned by Unicode scalars, not Characters: a `>` followed by a combining mark
        // or a ZWNJ (common after a mention in Persian) is one Character that is not ">",
        // and the tag would run on into the text.
        var rest = html.unicodeScalars[...]
        while let lt = rest.firstIndex(of: "<") {
            append(Self.decodeReferences(Substring(rest[..<lt])))
            guard let gt = rest[lt...].firstIndex(of: ">") else {
                append(Self.decodeReferences(Substring(rest[lt...])))
                rest = rest[rest.endIndex...]
                break
            }
            tag(Substring(rest[rest.index(after: lt)..<gt]))
            rest = rest[rest.index(after: gt)...]
        }
        append(Self.decodeReferences(Substring(rest)))
        while !open.isEmpty { closeLink() }
        // Trailing line breaks carry nothing (a final `<br>` or an empty paragraph); a
        // link that took them in ends where the text now does.
        while text.unicodeScalars.last == "\n" {
            text.unicodeScalars.removeLast()
            count -= 1
        }
        links = links.compactMap { link in
            guard link.range.end > count else { return link }
            guard let range = TextRange(start: link.range.start, end: count), range.count > 0 else { return nil }
            var clamped = link
            clamped.range = range
            clamped.text = String(String.UnicodeScalarView(link.text.unicodeScalars.prefix(range.count)))
            return clamped
        }.filter { $0.range.count > 0 }
    }

    private mutating func append(_ piece: String) {
        guard !piece.isEmpty else { return }
        text += piece
        count += piece.unicodeScalars.count
    }

    private mutating func tag(_ body: Substring) {
        let closing = body.hasPrefix("/")
        let content = closing ? body.dropFirst() : body
        let name = content.prefix { !$0.isWhitespace && $0 != "/" }.lowercased()
        switch (name, closing) {
        case ("p", false), ("blockquote", false), ("li", false), ("pre", false):
            if count > 0, !text.hasSuffix("\n\n") { append(text.hasSuffix("\n") ? "\n" : "\n\n") }
        case ("br", _):
            append("\n")
        case ("a", false):
            // Links do not nest (as in HTML): a new one ends any still open, so hostile
            // input cannot pile up thousands of overlapping ranges.
            while !open.isEmpty { closeLink() }
            let attributes = Self.attributes(content.dropFirst(name.count))
            let classes = (attributes["class"] ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" })
            open.append((count, attributes["href"], classes))
        case ("a", true):
            closeLink()
        default:
            break
        }
    }

    private mutating func closeLink() {
        guard let link = open.popLast(), let range = TextRange(start: link.start, end: count) else { return }
        let scalars = text.unicodeScalars
        let from = scalars.index(scalars.endIndex, offsetBy: -(count - link.start))
        links.append(Link(range: range, href: link.href, classes: link.classes, text: String(scalars[from...])))
    }

    /// `name="value"`, `name='value'`, `name=value` and bare names, values decoded.
    static func attributes(_ text: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var rest = text.unicodeScalars[...]
        func isSpace(_ c: Unicode.Scalar) -> Bool { c.properties.isWhitespace }
        while true {
            rest = rest.drop { isSpace($0) || $0 == "/" }
            guard !rest.isEmpty else { return result }
            let name = String(String.UnicodeScalarView(rest.prefix { !isSpace($0) && $0 != "=" && $0 != "/" }))
            guard !name.isEmpty else { return result }
            rest = rest.dropFirst(name.unicodeScalars.count).drop { isSpace($0) }
            var value = ""
            if rest.first == "=" {
                rest = rest.dropFirst().drop { isSpace($0) }
                if let quote = rest.first, quote == "\"" || quote == "'" {
                    let inner = rest.dropFirst()
                    let end = inner.firstIndex(of: quote) ?? inner.endIndex
                    value = decodeReferences(Substring(inner[..<end]))
                    rest = end < inner.endIndex ? inner[inner.index(after: end)...] : inner[end...]
                } else {
                    let raw = rest.prefix { !isSpace($0) }
                    value = decodeReferences(Substring(raw))
                    rest = rest.dropFirst(raw.count)
                }
            }
            result[name.lowercased()] = result[name.lowercased()] ?? value
        }
    }

    /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&nbsp;`, `&#NN;` and `&#xHH;`;
    /// anything else is left as written.
    static func decodeReferences(_ text: Substring) -> String {
        let scalars = text.unicodeScalars
        guard scalars.contains("&") else { return String(text) }
        var out = String.UnicodeScalarView()
        var rest = scalars[...]
        while let amp = rest.firstIndex(of: "&") {
            out.append(contentsOf: rest[..<amp])
            let after = rest[rest.index(after: amp)...]
            guard let semicolon = after.prefix(12).firstIndex(of: ";") else {
                out.append("&")
                rest = after
                continue
            }
            let name = String(String.UnicodeScalarView(after[..<semicolon]))
            if let scalar = reference(Substring(name)) {
                out.append(scalar)
            } else {
                out.append(contentsOf: "&\(name);".unicodeScalars)
            }
            rest = after[after.index(after: semicolon)...]
        }
        out.append(contentsOf: rest)
        return String(out)
    }

    private static func reference(_ name: Substring) -> Unicode.Scalar? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        case "nbsp": return "\u{A0}"
        default: break
        }
        guard name.hasPrefix("#") else { return nil }
        let digits = name.dropFirst()
        let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
        guard let value, value != 0 else { return nil }
        return Unicode.Scalar(value)
    }
}

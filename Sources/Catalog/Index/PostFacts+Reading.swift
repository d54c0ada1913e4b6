import Foundation

extension PostFacts {
    /// The facts of the post whose JSON is `bytes`: read by hand when the JSON is of
    /// the plain kind every manifest writer makes, else by Foundation's decoder (which
    /// also says what is wrong with a post that is not one).
    ///
    /// Foundation's `Codable` decoding was most of a reindex's time (about 100 µs a
    /// post, against the few microseconds of SQLite's work for it). The hand reader
    /// checks the whole post as strict JSON, skipped members too, and gives up (nil,
    /// so Foundation decides) at anything it does not read exactly as Foundation
    /// does: a key given twice, a lone surrogate, a number it would not read as an
    /// `Int`, a trailing comma, nesting deeper than 64. So a post it reads is the post
    /// Foundation reads; `fuzz-manifest` holds the two to that.
    static func read(_ bytes: UnsafeRawBufferPointer) throws -> PostFacts {
        var reader = StrictJSONReader(bytes)
        if let facts = reader.postFacts(), reader.atEnd { return facts }
        return try JSONDecoder().decode(PostFacts.self, from: Data(bytes))
    }
}

/// A strict JSON reader over bytes, for the shapes of ``PostFacts``: each method
/// returns nil (or false) both when the JSON is wrong and when it is merely unusual;
/// the caller then lets Foundation's decoder read the post.
struct StrictJSONReader {
    private let bytes: UnsafeRawBufferPointer
    private var i = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var atEnd: Bool {
        mutating get {
            space()
            return i == bytes.count
        }
    }

    // MARK: - The post's shapes

    mutating func postFacts() -> PostFacts? {
        var id: String?, createdAt: Date??, text: String?, author: PostFacts.Author?, entities: PostFacts.Entities?
        var media: [PostFacts.Media]?, query: String??, network: String??
        let ok = object { r, key in
            switch key {
            case "id": return r.once(&id, r.string())
            case "created_at":
                guard let value = r.optional({ $0.string() }) else { return false }
                guard let text = value else { return r.once(&createdAt, .some(nil)) }
                guard let date = PostFacts.date(text) else { return false }
                return r.once(&createdAt, .some(date))
            case "text": return r.once(&text, r.string())
            case "author": return r.once(&author, r.author())
            case "entities": return r.once(&entities, r.entities())
            case "media": return r.once(&media, r.array { $0.media() })
            case "query": return r.once(&query, r.optional { $0.string() })
            case "network": return r.once(&network, r.optional { $0.string() })
            default: return r.skip()
            }
        }
        guard ok, let id, let text, let author, let entities, let media else { return nil }
        return PostFacts(id: id, createdAt: createdAt ?? nil, text: text, author: author, entities: entities, media: media,
                         query: query ?? nil, network: network ?? nil)
    }

    private mutating func author() -> PostFacts.Author? {
        var screenName: String?, name: String?, avatar: PostFacts.Ref??
        let ok = object { r, key in
            switch key {
            case "screen_name": return r.once(&screenName, r.string())
            case "name": return r.once(&name, r.string())
            case "avatar": return r.once(&avatar, r.optional { $0.ref() })
            default: return r.skip()
            }
        }
        guard ok, let screenName, let name else { return nil }
        return PostFacts.Author(screenName: screenName, name: name, avatar: avatar ?? nil)
    }

    private mutating func ref() -> PostFacts.Ref? {
        var url: String?, sha256: String??
        let ok = object { r, key in
            switch key {
            case "url": return r.once(&url, r.string())
            case "sha256": return r.once(&sha256, r.optional { $0.string() })
            default: return r.skip()
            }
        }
        guard ok, let url else { return nil }
        return PostFacts.Ref(url: url, sha256: sha256 ?? nil)
    }

    private mutating func entities() -> PostFacts.Entities? {
        var hashtags: [PostFacts.Tag]?, cashtags: [PostFacts.Tag]?, mentions: [PostFacts.Mention]?, urls: [PostFacts.Link]?
        let ok = object { r, key in
            switch key {
            case "hashtags": return r.once(&hashtags, r.array { $0.single("tag").map { PostFacts.Tag(tag: $0) } })
            case "cashtags": return r.once(&cashtags, r.array { $0.single("tag").map { PostFacts.Tag(tag: $0) } })
            case "mentions": return r.once(&mentions, r.array { $0.single("username").map { PostFacts.Mention(username: $0) } })
            case "urls": return r.once(&urls, r.array { $0.link() })
            default: return r.skip()
            }
        }
        guard ok, let hashtags, let cashtags, let mentions, let urls else { return nil }
        return PostFacts.Entities(hashtags: hashtags, cashtags: cashtags, mentions: mentions, urls: urls)
    }

    /// An object of which only the string member `name` is read.
    private mutating func single(_ name: String) -> String? {
        var value: String?
        let ok = object { r, key in key == name ? r.once(&value, r.string()) : r.skip() }
        return ok ? value : nil
    }

    private mutating func link() -> PostFacts.Link? {
        var url: String?, expanded: String??
        let ok = object { r, key in
            switch key {
            case "url": return r.once(&url, r.string())
            case "expanded_url": return r.once(&expanded, r.optional { $0.string() })
            default: return r.skip()
            }
        }
        guard ok, let url else { return nil }
        return PostFacts.Link(url: url, expandedURL: expanded ?? nil)
    }

    private mutating func media() -> PostFacts.Media? {
        var id: String?, type: String?, url: String??, sha256: String??, contentType: String??
        var width: Int??, height: Int??, video: PostFacts.Ref??, pdq: String??, pdqQuality: Int??, pdqDihedral: [String]??
        let ok = object { r, key in
            switch key {
            case "id": return r.once(&id, r.string())
            case "type": return r.once(&type, r.string())
            case "url": return r.once(&url, r.optional { $0.string() })
            case "sha256": return r.once(&sha256, r.optional { $0.string() })
            case "content_type": return r.once(&contentType, r.optional { $0.string() })
            case "width": return r.once(&width, r.optional { $0.int() })
            case "height": return r.once(&height, r.optional { $0.int() })
            case "video": return r.once(&video, r.optional { $0.ref() })
            case "pdq": return r.once(&pdq, r.optional { $0.string() })
            case "pdq_quality": return r.once(&pdqQuality, r.optional { $0.int() })
            case "pdq_dihedral": return r.once(&pdqDihedral, r.optional { $0.array { $0.string() } })
            default: return r.skip()
            }
        }
        guard ok, let id, let type else { return nil }
        return PostFacts.Media(id: id, type: type, url: url ?? nil, sha256: sha256 ?? nil, contentType: contentType ?? nil,
                               width: width ?? nil, height: height ?? nil, video: video ?? nil, pdq: pdq ?? nil,
                               pdqQuality: pdqQuality ?? nil, pdqDihedral: pdqDihedral ?? nil)
    }

    /// Sets `slot` to `value` if it was not set: false for a key given twice (which
    /// copy counts is Foundation's business) and for a value that did not read.
    private func once<T>(_ slot: inout T?, _ value: T?) -> Bool {
        guard slot == nil, let value else { return false }
        slot = value
        return true
    }

    // MARK: - JSON

    private mutating func space() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        space()
        guard i < bytes.count, bytes[i] == byte else { return false }
        i += 1
        return true
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard i + count <= bytes.count else { return false }
        for k in 0..<count where bytes[i + k] != text.utf8Start[k] { return false }
        i += count
        return true
    }

    /// `null` as `.some(nil)`, a value as `.some(value)`, nil when neither reads.
    private mutating func optional<T>(_ read: (inout StrictJSONReader) -> T?) -> T?? {
        space()
        if i < bytes.count, bytes[i] == UInt8(ascii: "n") { return literal("null") ? .some(nil) : nil }
        return read(&self).map { .some($0) }
    }

    /// An object's members: `member` reads (or skips) each value after its key.
    private mutating func object(_ member: (inout StrictJSONReader, String) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        while true {
            space()
            guard let key = string(), take(UInt8(ascii: ":")), member(&self, key) else { return false }
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "}"))
        }
    }

    private mutating func array<T>(_ element: (inout StrictJSONReader) -> T?) -> [T]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var result: [T] = []
        if take(UInt8(ascii: "]")) { return result }
        while true {
            guard let value = element(&self) else { return nil }
            result.append(value)
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "]")) ? result : nil
        }
    }

    /// A string: escapes read, control characters refused, UTF-8 checked.
    mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = i
        var plain = true
        var ascii = true
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                defer { i += 1 }
                let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<i])
                if plain, ascii { return String(decoding: raw, as: UTF8.self) }
                return plain ? String(validating: raw, as: UTF8.self) : unescaped(raw)
            }
            if b >= 0x80 { ascii = false }
            if b < 0x20 { return nil }
            if b == UInt8(ascii: "\\") {
                plain = false
                i += 2
            } else {
                i += 1
            }
        }
        return nil
    }

    private func unescaped(_ raw: UnsafeRawBufferPointer) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var k = 0
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= raw.count else { return nil }
            var value: UInt32 = 0
            for j in at..<at + 4 {
                let c = raw[j]
                let digit: UInt32
                switch c {
                case 0x30...0x39: digit = UInt32(c - 0x30)
                case 0x61...0x66: digit = UInt32(c - 0x57)
                case 0x41...0x46: digit = UInt32(c - 0x37)
                default: return nil
                }
                value = value << 4 | digit
            }
            return value
        }
        while k < raw.count {
            let b = raw[k]
            guard b == UInt8(ascii: "\\") else {
                out.append(b)
                k += 1
                continue
            }
            guard k + 1 < raw.count else { return nil }
            let e = raw[k + 1]
            k += 2
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = hex4(k) else { return nil }
                k += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    // A pair, or nothing this reader takes.
                    guard k + 1 < raw.count, raw[k] == UInt8(ascii: "\\"), raw[k + 1] == UInt8(ascii: "u"),
                          let low = hex4(k + 2), (0xDC00...0xDFFF).contains(low)
                    else { return nil }
                    k += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    return nil
                }
                guard let s = Unicode.Scalar(scalar) else { return nil }
                out.append(contentsOf: UTF8.encode(s)!)
            default:
                return nil
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// A JSON integer that fits an `Int` (no fraction, no exponent: those Foundation
    /// reads by rules of its own).
    private mutating func int() -> Int? {
        space()
        let start = i
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        let digits = i
        while i < bytes.count, (0x30...0x39).contains(bytes[i]) { i += 1 }
        let count = i - digits
        guard count > 0, count <= 18, !(count > 1 && bytes[digits] == 0x30) else { return nil }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") || bytes[i] | 0x20 == UInt8(ascii: "e") { return nil }
        return Int(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self))
    }

    /// Past one value of any kind, checked as strictly as a read one.
    private mutating func skip(depth: Int = 0) -> Bool {
        guard depth < 64 else { return false }
        space()
        guard i < bytes.count else { return false }
        switch bytes[i] {
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "{"): return object { r, _ in r.skip(depth: depth + 1) }
        case UInt8(ascii: "["): return array { $0.skip(depth: depth + 1) ? () : nil } != nil
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    /// A JSON number by its grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func number() -> Bool {
        func digits() -> Int {
            let start = i
            while i < bytes.count, (0x30...0x39).contains(bytes[i]) { i += 1 }
            return i - start
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        let first = i
        let whole = digits()
        guard whole > 0, !(whole > 1 && bytes[first] == 0x30) else { return false }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return false }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return false }
        }
        return true
    }
}

extension ManifestFile {
    /// For `fuzz-manifest`: where the catalog's hand reader of the post at `range`
    /// disagrees with Foundation's decoder (it read a post Foundation refuses, or read
    /// it differently), nil when it agrees or leaves the post to Foundation.
    package func handReaderDisagreement(at range: Range<Int>) -> String? {
        let json = slice(range)
        let hand = json.withUnsafeBytes { raw -> PostFacts? in
            var reader = StrictJSONReader(raw)
            guard let facts = reader.postFacts(), reader.atEnd else { return nil }
            return facts
        }
        guard let hand else { return nil }
        guard let foundation = try? JSONDecoder().decode(PostFacts.self, from: json) else {
            return "the hand reader read a post Foundation refuses: \(range)"
        }
        return hand == foundation ? nil : "the hand reader read the post at \(range) differently"
    }
}

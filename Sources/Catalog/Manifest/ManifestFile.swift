import Foundation

/// A manifest file read in bounded memory: mapped, not loaded, its top-level members
/// found by a scan of its structure, and each post decoded on its own from its bytes.
///
/// This is how the catalog reads a run of any size (a million-post run writes a
/// manifest of gigabytes: decoded whole it would take ten times that in memory), and
/// why the catalog can point at a post by its byte range in the file rather than keep
/// a second copy of it: ``post(at:)`` decodes just those bytes again.
///
/// The scan finds structure only (strings with their escapes, nesting, separators);
/// the members it needs are decoded by Foundation's decoder, so what is accepted is
/// what ``Manifest/decode(_:)`` accepts, member by member.
public struct ManifestFile: Sendable {
    /// The values of the manifest besides its posts.
    public struct Header: Decodable, Sendable {
        public var version: Int
        public var generatedAt: Date
        public var sources: [Manifest.Source]

        enum CodingKeys: String, CodingKey {
            case version, sources
            case generatedAt = "generated_at"
        }
    }

    /// Which array a post is in.
    public enum Section: Sendable, Equatable {
        case tweets
        case includedTweets
    }

    /// Why a file is not a manifest (or not one this version reads).
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    public let bytes: Data
    public let header: Header
    /// Byte ranges of the two arrays' elements are found again by ``forEachPost(_:)``;
    /// these are the counts the scan saw.
    public let tweetCount: Int
    public let includedCount: Int

    /// Maps `url` and checks its structure and header; every post is left undecoded.
    public init(url: URL) throws {
        try self.init(bytes: Data(contentsOf: url, options: .alwaysMapped))
    }

    public init(bytes: Data) throws {
        self.bytes = bytes
        var members: [String: Range<Int>] = [:]
        var counts: [Section: Int] = [:]
        try bytes.withUnsafeBytes { raw in
            try Self.scan(raw) { key, range in
                members[key] = range
            } element: { section, _ in
                counts[section, default: 0] += 1
            }
        }
        for key in ["version", "generated_at", "sources", "tweets"] where members[key] == nil {
            throw Problem(description: "missing \(key)")
        }
        var document = Data("{".utf8)
        for (i, key) in ["version", "generated_at", "sources"].enumerated() {
            if i > 0 { document.append(UInt8(ascii: ",")) }
            document.append(contentsOf: Array("\"\(key)\":".utf8))
            document.append(bytes[members[key]!.lowerBound + bytes.startIndex ..< members[key]!.upperBound + bytes.startIndex])
        }
        document.append(UInt8(ascii: "}"))
        do {
            header = try Self.decoder.decode(Header.self, from: document)
        } catch let error as DecodingError {
            throw Problem(description: Self.describe(error))
        }
        guard header.version == Manifest.currentVersion else {
            throw Problem(description: "version \(header.version), not \(Manifest.currentVersion)")
        }
        tweetCount = counts[.tweets] ?? 0
        includedCount = counts[.includedTweets] ?? 0
    }

    /// Each post's section and byte range, in file order, with nothing decoded.
    public func forEachPost(_ body: (Section, Range<Int>) throws -> Void) throws {
        try bytes.withUnsafeBytes { raw in
            try Self.scan(raw, member: { _, _ in }, element: body)
        }
    }

    /// The post whose JSON is `range` of the file.
    public func post(at range: Range<Int>) throws -> ManifestTweet {
        try Self.decodePost(slice(range))
    }

    /// The bytes at `range` of the file (offsets from its start).
    public func slice(_ range: Range<Int>) -> Data {
        bytes[(bytes.startIndex + range.lowerBound)..<(bytes.startIndex + range.upperBound)]
    }

    /// A post from its JSON, as the manifest holds it.
    public static func decodePost(_ json: Data) throws -> ManifestTweet {
        try decoder.decode(ManifestTweet.self, from: json)
    }

    static var decoder: JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return d
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case let .keyNotFound(key, _): return "missing \(key.stringValue)"
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .dataCorrupted(context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    // MARK: - The scan

    /// Walks the top-level object: `member` gets every key with its value's range
    /// (the two arrays of posts once they are walked), `element` every post. Throws on anything that is
    /// not a well-formed object of members (a truncated file among them).
    private static func scan(
        _ bytes: UnsafeRawBufferPointer,
        member: (String, Range<Int>) throws -> Void,
        element: (Section, Range<Int>) throws -> Void
    ) throws {
        var s = Scanner(bytes: bytes)
        s.skipSpace()
        guard s.peek() == UInt8(ascii: "{") else { throw Problem(description: "not a JSON object") }
        s.position += 1
        s.skipSpace()
        if s.peek() == UInt8(ascii: "}") { throw Problem(description: "missing version") }
        var seen = Set<String>()
        while true {
            s.skipSpace()
            guard let key = s.plainString() else { throw Problem(description: "malformed JSON at byte \(s.position)") }
            guard seen.insert(key).inserted else { throw Problem(description: "\(key) given twice") }
            s.skipSpace()
            guard s.peek() == UInt8(ascii: ":") else { throw Problem(description: "malformed JSON at byte \(s.position)") }
            s.position += 1
            s.skipSpace()
            let section: Section? = key == "tweets" ? .tweets : key == "included_tweets" ? .includedTweets : nil
            if let section {
                guard s.peek() == UInt8(ascii: "[") else { throw Problem(description: "\(key): not an array") }
                let start = s.position
                defer { if s.position > start { try? member(key, start..<s.position) } }
                try s.elements { range in
                    guard bytes[range.lowerBound] == UInt8(ascii: "{") else {
                        throw Problem(description: "\(key): an element is not an object")
                    }
                    try element(section, range)
                }
            } else {
                let start = s.position
                guard s.skipValue(), s.position > start else { throw Problem(description: "malformed JSON at byte \(start)") }
                try member(key, start..<s.position)
            }
            s.skipSpace()
            guard let next = s.peek() else { throw Problem(description: "truncated: the file ends inside the manifest") }
            s.position += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { throw Problem(description: "malformed JSON at byte \(s.position - 1)") }
        }
        s.skipSpace()
        guard s.atEnd else { throw Problem(description: "bytes after the manifest's end at \(s.position)") }
    }

    /// Finds structure only: strings (with escapes), nesting, separators.
    private struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        var atEnd: Bool { position >= bytes.count }
        func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

        static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

        mutating func skipSpace() {
            while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
        }

        /// A key without escapes, or nil.
        mutating func plainString() -> String? {
            guard peek() == UInt8(ascii: "\"") else { return nil }
            let start = position + 1
            var i = start
            while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
                if bytes[i] == UInt8(ascii: "\\") { return nil }
                i += 1
            }
            guard i < bytes.count else { return nil }
            position = i + 1
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        }

        mutating func skipString() -> Bool {
            position += 1
            while position < bytes.count {
                let b = bytes[position]
                if b == UInt8(ascii: "\\") {
                    position += 2
                    continue
                }
                position += 1
                if b == UInt8(ascii: "\"") { return true }
            }
            return false
        }

        /// Past one value; false when it does not end or its brackets do not balance.
        mutating func skipValue() -> Bool {
            guard let b = peek() else { return false }
            if b == UInt8(ascii: "\"") { return skipString() }
            if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
                var stack: [UInt8] = []
                while position < bytes.count {
                    let c = bytes[position]
                    if c == UInt8(ascii: "\"") {
                        guard skipString() else { return false }
                        continue
                    }
                    position += 1
                    if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                        stack.append(c == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                    } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                        guard stack.popLast() == c else { return false }
                        if stack.isEmpty { return true }
                    }
                }
                return false
            }
            while position < bytes.count {
                let c = bytes[position]
                if c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]") || Self.isSpace(c) { break }
                position += 1
            }
            return true
        }

        /// Calls `body` with each element's range of the array at `position`.
        mutating func elements(_ body: (Range<Int>) throws -> Void) throws {
            position += 1  // "["
            skipSpace()
            if peek() == UInt8(ascii: "]") {
                position += 1
                return
            }
            while true {
                skipSpace()
                let start = position
                guard skipValue(), position > start else { throw Problem(description: "malformed JSON at byte \(start)") }
                try body(start..<position)
                skipSpace()
                guard let next = peek() else { throw Problem(description: "truncated: the file ends inside an array") }
                position += 1
                if next == UInt8(ascii: "]") { return }
                guard next == UInt8(ascii: ",") else { throw Problem(description: "malformed JSON at byte \(position - 1)") }
            }
        }
    }
}

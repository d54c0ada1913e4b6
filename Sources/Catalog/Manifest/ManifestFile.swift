import BlobStore
import Foundation
import TweetModel
internal import CTweetCache
#if canImport(Glibc)
internal import Glibc
#endif

/// A manifest file read in bounded memory: mapped, not loaded, its top-level members
/// found by a scan of its structure, and each post decoded on its own from its bytes.
///
/// This is how the catalog reads a run of any size (a million-post run writes a
/// manifest of gigabytes: decoded whole it would take ten times that in memory), and
/// why the catalog can point at a post by its byte range in the file rather than keep
/// a second copy of it: ``post(at:)`` decodes just those bytes again.
///
/// The scan finds structure only (``TweetModel/JSONStructureScanner``: strings with
/// their escapes, nesting, separators); the members it needs are decoded by
/// Foundation's decoder, so what is accepted is
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

    /// The manifest's JSON (uncompressed, for a compressed file).
    public let bytes: Data
    /// The file's own size: what the catalog compares with a listing's.
    public let fileSize: Int
    /// Whether the file is seekable zstd (a rewrite writes it so again).
    public let isCompressed: Bool
    public let header: Header
    /// The counts of the two arrays' elements the scan saw.
    public let tweetCount: Int
    public let includedCount: Int
    /// Where each top-level member's value is.
    private let members: [String: Range<Int>]
    /// Each post's section and byte range as the opening scan found them, when there
    /// are at most ``keptPlaces``: ``forEachPost(releasing:_:)`` walks these rather than
    /// scanning the file a second time (a third of a million-post reindex's scanning).
    /// A larger file is scanned again, so memory stays bounded whatever its size.
    private let places: [Place]?

    struct Place: Sendable {
        var section: Section
        var range: Range<Int>
    }

    /// Posts whose places are kept: 32 Ki (runs are mostly smaller), 768 KB at most,
    /// for a manifest read at the end of a run that is at its memory's peak.
    static let keptPlaces = 1 << 15
    /// The mapping behind `bytes`, when the file was mapped: pages already read are
    /// given back with ``release(_:)``, so reading a manifest of gigabytes does not
    /// leave it resident.
    private let mapping: MappedFile?

    /// Maps `url` and checks its structure and header; every post is left undecoded.
    /// A compressed manifest (seekable zstd, ``SeekableZstd``) is first written out
    /// whole into a file of its own that no name reaches (removed as it is made, gone
    /// with the last mapping of it), and that is mapped: its offsets are then the
    /// JSON's, as the catalog keeps them.
    public init(url: URL) throws {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Problem(description: "cannot open \(url.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0 else { throw Problem(description: "cannot read \(url.path): empty") }
        let compressed = SeekableZstd.isCompressed(fd)
        let mapping: MappedFile
        do {
            if compressed {
                mapping = try Self.expand(fd, from: url)
            } else {
                mapping = try MappedFile(descriptor: fd, path: url.path)
            }
        } catch let error as ResultsStream.Failure {
            throw Problem(description: error.description)
        }
        try self.init(bytes: mapping.bytes, mapping: mapping, fileSize: Int(info.st_size), compressed: compressed)
    }

    public init(bytes: Data) throws {
        try self.init(bytes: bytes, mapping: nil, fileSize: bytes.count, compressed: false)
    }

    /// Keeps the places of at most `keeping` posts (tests of the second scan).
    package init(bytes: Data, keepingPlaces keeping: Int) throws {
        try self.init(bytes: bytes, mapping: nil, fileSize: bytes.count, compressed: false, keepingPlaces: keeping)
    }

    /// The compressed manifest open at `fd`, uncompressed into an unnamed file beside
    /// it (or in the temporary folder, where its own is read-only or short of space)
    /// and mapped. The file's space is taken first (`fallocate`: a full disk is an
    /// error here, not half a file), then the frames are decompressed and written on
    /// every core.
    private static func expand(_ fd: Int32, from url: URL) throws -> MappedFile {
        let table: SeekableZstd.Table
        do { table = try SeekableZstdFile(descriptor: fd).table } catch { throw Problem(description: error.description) }
        guard table.decompressedSize > 0 else { throw Problem(description: "\(url.lastPathComponent): no JSON in it") }
        let size = table.decompressedSize
        var output: Int32 = -1
        var problem = ""
        for folder in [url.deletingLastPathComponent().path, NSTemporaryDirectory()] {
            // Its JSON may be many times the file (a forgotten run's spaces, or a
            // stranger's bytes made to look so): not more than leaves the disk a margin.
            var disk = statvfs()
            if statvfs(folder, &disk) == 0 {
                let free = Int(disk.f_bavail) * Int(disk.f_frsize), margin = min(1 << 30, Int(disk.f_blocks) * Int(disk.f_frsize) / 20)
                guard size <= free - margin else {
                    problem = "its \(size) bytes of JSON would leave \(folder) less than \(margin) bytes free"
                    continue
                }
            }
            output = Self.unnamedFile(in: folder)
            if output >= 0 { break }
            problem = String(cString: strerror(errno))
        }
        guard output >= 0 else { throw Problem(description: "cannot uncompress \(url.lastPathComponent): \(problem)") }
        defer { close(output) }
        let path = "(\(url.lastPathComponent), uncompressed)"
        let reserved = posix_fallocate(output, 0, off_t(size))
        guard reserved == 0 else {
            throw Problem(description: "cannot uncompress \(url.lastPathComponent) (\(size) bytes): \(String(cString: strerror(reserved)))")
        }
        let lanes = min(ProcessInfo.processInfo.activeProcessorCount, 8, table.frameCount)
        let parts = ParallelSlices.split(0..<table.frameCount, parts: lanes)
        let written = output
        let problems = ParallelSlices.map(parts.count) { lane -> String? in
            do throws(SeekableZstd.Problem) {
                // A reader and a buffer of its own a lane (a decompression context is
                // not shared); written with `pwrite`, so the pages are the page cache's,
                // never this process's.
                let frames = SeekableZstdFile(descriptor: fd, table: table, directory: url.deletingLastPathComponent().path)
                var buffer = [UInt8](repeating: 0, count: SeekableZstd.frameBytes)
                for index in parts[lane] {
                    let start = table.decompressedStarts[index], count = table.decompressedStarts[index + 1] - start
                    if buffer.count < count { buffer = [UInt8](repeating: 0, count: count) }
                    try buffer.withUnsafeMutableBytes { b in
                        Result { () throws(SeekableZstd.Problem) in
                            let frame = UnsafeMutableRawBufferPointer(rebasing: b[0..<count])
                            try frames.frame(index, into: frame)
                            do { try FileSystem.writeAll(written, UnsafeRawBufferPointer(frame), at: start, path: path) } catch {
                                throw SeekableZstd.Problem("cannot write its JSON: \(error)")
                            }
                        }
                    }.get()
                }
                return nil
            } catch {
                return error.description
            }
        }
        if let problem = problems.compactMap({ $0 }).first {
            throw Problem(description: "\(url.lastPathComponent): \(problem)")
        }
        return try MappedFile(descriptor: output, path: path)
    }

    /// A new file in `folder` that no name reaches, open for reading and writing: made
    /// so (`O_TMPFILE`) where the file system can, else named and unlinked at once
    /// (a reader killed in between leaves `.expand-*`, which sweeps and `forget` remove).
    static func unnamedFile(in folder: String) -> Int32 {
        if let fd = FileSystem.openUnnamedFile(in: folder) { return fd }
        let path = folder + "/.expand-\(UInt64.random(in: .min ... .max)).json"
        let named = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if named >= 0 { unlink(path) }
        return named
    }

    private init(bytes: Data, mapping: MappedFile?, fileSize: Int, compressed: Bool,
                 keepingPlaces keeping: Int = Self.keptPlaces) throws {
        self.bytes = bytes
        self.mapping = mapping
        self.fileSize = fileSize
        isCompressed = compressed
        var released = 0
        var members: [String: Range<Int>] = [:]
        var tweets = 0, included = 0
        var places: [Place]? = []
        try bytes.withUnsafeBytes { raw in
            try Self.scan(raw) { key, range in
                members[key] = range
            } element: { section, range in
                if section == .tweets { tweets += 1 } else { included += 1 }
                if places != nil {
                    if tweets + included <= keeping {
                        places!.append(Place(section: section, range: range))
                    } else {
                        places = nil
                    }
                }
                if range.upperBound - released > Self.releaseEvery {
                    mapping?.release(released..<range.upperBound)
                    released = range.upperBound
                }
            }
        }
        // The header's pages too, once it is decoded: a file can wait a while to be
        // read (sync's queue), and a fault may map a large folio (2 MB) of it.
        defer { mapping?.release(0..<bytes.count) }
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
        tweetCount = tweets
        includedCount = included
        self.members = members
        self.places = places
    }

    /// Where the value of the top-level member `key` is (brackets included).
    package func range(ofMember key: String) -> Range<Int>? { members[key] }

    /// The manifest's failures, decoded without its posts.
    public func failures() throws -> [Manifest.Failure] {
        guard let range = members["failures"] else { return [] }
        return try Self.decoder.decode([Manifest.Failure].self, from: slice(range))
    }

    /// The failures of the manifest at `url`, without reading its posts: for a
    /// compressed manifest, its last frames only, back to its top-level `failures`
    /// (which a run writes after the posts, on a line of its own); any other file
    /// through ``init(url:)``. What a run prints at its end, a frame or two rather than
    /// the run's whole JSON.
    public static func failures(at url: URL) throws -> [Manifest.Failure] {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Problem(description: "cannot open \(url.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        if SeekableZstd.isCompressed(fd), let file = try? SeekableZstdFile(descriptor: fd, directory: url.deletingLastPathComponent().path) {
            let key = Array("\n  \"failures\" : ".utf8)
            var frames: [[UInt8]] = []  // the last ones, last first
            var index = file.table.frameCount
            while index > 0, frames.count < 256, frames.reduce(0, { $0 + $1.count }) < 64 << 20 {
                index -= 1
                do { frames.append(try file.frame(index)) } catch { throw Problem(description: error.description) }
                // The key may straddle this frame and the one after it.
                let seam = frames[frames.count - 1] + (frames.count > 1 ? Array(frames[frames.count - 2].prefix(key.count)) : [])
                guard let found = seam.firstRange(of: key) else { continue }
                let tail = Array(frames.reversed().joined())
                let value: [UInt8]? = tail.withUnsafeBytes { raw in
                    var scanner = JSONStructureScanner(bytes: raw, position: found.upperBound)
                    scanner.skipSpace()
                    let start = scanner.position
                    guard scanner.peek() == UInt8(ascii: "["), scanner.skipValue() else { return nil }
                    return Array(raw[start..<scanner.position])
                }
                guard let value else { break }
                return try decoder.decode([Manifest.Failure].self, from: Data(value))
            }
        }
        return try ManifestFile(url: url).failures()
    }

    /// The manifest's summary, decoded without its posts.
    public func summary() throws -> RunSummary? {
        guard let range = members["summary"] else { return nil }
        return try Self.decoder.decode(RunSummary.self, from: slice(range))
    }

    /// Each post's section and byte range, in file order, with nothing decoded.
    /// With `releasing`, the pages of posts already handed over are given back as the
    /// walk goes: for a `body` that is done with each post when it returns.
    public func forEachPost(releasing: Bool = false, _ body: (Section, Range<Int>) throws -> Void) throws {
        var released = 0
        func each(_ section: Section, _ range: Range<Int>) throws {
            try body(section, range)
            if releasing, range.upperBound - released > Self.releaseEvery {
                release(released..<range.upperBound)
                released = range.upperBound
            }
        }
        if let places {
            for place in places { try each(place.section, place.range) }
        } else {
            try bytes.withUnsafeBytes { raw in
                try Self.scan(raw, member: { _, _ in }, element: each)
            }
        }
        if releasing { release(0..<bytes.count) }
    }

    /// Gives back the resident pages inside `range` (read again from the file if needed).
    public func release(_ range: Range<Int>) { mapping?.release(range) }

    static let releaseEvery = 4 << 20

    /// The post whose JSON is `range` of the file.
    public func post(at range: Range<Int>) throws -> ManifestTweet {
        try Self.decodePost(slice(range))
    }

    /// The posts at `ranges`, each decoded as `T`, in order: a narrow view of a post
    /// holding only what its reader needs (the catalog's facts, sync's URLs), which
    /// costs a fraction of a whole ``ManifestTweet``. A batch of 256 or more is decoded
    /// on every core: decoding is most of reading a big run.
    public func decode<T: Decodable & Sendable>(_ type: T.Type, at ranges: [Range<Int>]) -> [Result<T, Problem>] {
        read(at: ranges) { json in try JSONDecoder().decode(T.self, from: json) }
    }

    /// The posts at `ranges`, each read by `read` from its JSON, in order, on every
    /// core for a batch of 256 or more: for a reader faster than `Codable` (the
    /// catalog's ``PostFacts``).
    package func read<T: Sendable>(at ranges: [Range<Int>], _ read: @Sendable (Data) throws -> T) -> [Result<T, Problem>] {
        let lanes = ranges.count >= 256 ? min(ProcessInfo.processInfo.activeProcessorCount, 8) : 1
        let parts = ParallelSlices.split(ranges.indices, parts: lanes)
        return ParallelSlices.map(parts.count) { lane in
            parts[lane].map { i -> Result<T, Problem> in
                Result { try read(slice(ranges[i])) }.mapError(Self.problem)
            }
        }.flatMap { $0 }
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

    /// What was wrong with a post that did not read, as a reader is told.
    static func problem(_ error: any Error) -> Problem {
        if let error = error as? Problem { return error }
        if let error = error as? DecodingError { return Problem(description: describe(error)) }
        return Problem(description: "\(error)")
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

    /// Past the object or array at `offset` of `bytes` by SSE2 (``tc_json_container_end``,
    /// the scanner's own walk for what it gives up on): the scan of a million posts'
    /// manifests, about 2 ns a byte walked here, was the busiest step of reading them.
    static func containerEnd(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let end = tc_json_container_end(base.assumingMemoryBound(to: UInt8.self), bytes.count, offset)
        return end >= 0 ? end : nil
    }

    /// Walks the top-level object: `member` gets every key with its value's range
    /// (the two arrays of posts once they are walked), `element` every post. Throws on anything that is
    /// not a well-formed object of members (a truncated file among them).
    private static func scan(
        _ bytes: UnsafeRawBufferPointer,
        member: (String, Range<Int>) throws -> Void,
        element: (Section, Range<Int>) throws -> Void
    ) throws {
        var s = JSONStructureScanner(bytes: bytes, containerEnd: containerEnd)
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
                let close = try s.walkArray { range in
                    guard bytes[range.lowerBound] == UInt8(ascii: "{") else {
                        throw Problem(description: "\(key): an element is not an object")
                    }
                    try element(section, range)
                    return true
                }
                guard close != nil else {
                    throw Problem(description: s.atEnd ? "truncated: the file ends inside \(key)" : "malformed JSON in \(key) at byte \(s.position)")
                }
                try member(key, start..<s.position)
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
            // A comma before the close, as Foundation's decoder reads it.
            s.skipSpace()
            if s.peek() == UInt8(ascii: "}") {
                s.position += 1
                break
            }
        }
        s.skipSpace()
        guard s.atEnd else { throw Problem(description: "bytes after the manifest's end at \(s.position)") }
    }
}

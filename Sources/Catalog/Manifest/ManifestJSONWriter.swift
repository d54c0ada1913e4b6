import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// Writes a manifest's JSON straight into bytes: the same bytes as
/// ``Manifest/referenceEncoder()`` (pretty-printed, keys sorted, slashes unescaped),
/// but for the order of the top level's members (see `write(_ m: Manifest)`).
///
/// Why not Foundation's encoder: a run's manifest lists every tweet, 10 MB of JSON
/// for 10,000 photos, and the generic encoder builds a tree of boxed values, sorts
/// every object's keys and then prints it: ~200 ms on one core, a phase after the
/// last download that curl does not have. Here each type writes its keys in sorted order
/// by hand, so nothing is boxed, sorted or copied twice.
///
/// The price is that the key lists below repeat each type's `CodingKeys`.
/// `ManifestJSONWriterTests` keeps them honest: a manifest with every optional field
/// set (checked by reflection, so a new field cannot be missed) must come out byte
/// for byte as Foundation writes it, and decode to what Foundation's bytes decode to.
struct ManifestJSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Elements written so far in each open object or array, innermost last (so its
    /// count is the nesting depth).
    private var counts: [Int] = []

    /// The manifest's JSON.
    static func encode(_ manifest: Manifest) -> Data {
        var w = ManifestJSONWriter()
        // About 1 KB per tweet; growing past the guess costs one copy.
        w.bytes.reserveCapacity(4096 + (manifest.tweets.count + manifest.includedTweets.count) * 1100)
        w.write(manifest)
        return Data(w.bytes)
    }

    // MARK: - Structure

    private mutating func beginObject() { open(UInt8(ascii: "{")) }
    private mutating func endObject() { close(UInt8(ascii: "}")) }
    private mutating func beginArray() { open(UInt8(ascii: "[")) }
    private mutating func endArray() { close(UInt8(ascii: "]")) }

    private mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        counts.append(0)
    }

    /// `{` and `}` (or `[` and `]`) on lines of their own, an empty one with a blank
    /// line between, as Foundation's pretty printer writes them.
    private mutating func close(_ bracket: UInt8) {
        let count = counts.removeLast()
        bytes.append(0x0A)
        if count == 0 { bytes.append(0x0A) }
        indent()
        bytes.append(bracket)
    }

    /// Starts the next element of the innermost object or array on its own line.
    private mutating func nextElement() {
        if counts[counts.count - 1] > 0 { bytes.append(UInt8(ascii: ",")) }
        counts[counts.count - 1] += 1
        bytes.append(0x0A)
        indent()
    }

    private mutating func indent() {
        for _ in 0..<counts.count { bytes.append(0x20); bytes.append(0x20) }
    }

    /// The next key of the innermost object; keys must come in sorted order (but for
    /// the top level's, see ``write(_:)-manifest``).
    private mutating func key(_ name: StaticString) {
        nextElement()
        bytes.append(UInt8(ascii: "\""))
        raw(name)
        raw("\" : ")
    }

    /// Bytes written as they are (ASCII the writer itself spells), with no allocation.
    private mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `value` in decimal, zero-padded to `width` digits (dates' fields).
    private mutating func padded(_ value: Int, width: Int) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    // MARK: - Values

    private mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for (i, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i]))
                escape(byte)
                start = i + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            raw("u00")
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0xF)])
        }
    }

    /// Foundation writes the other control characters as `\u00xx`, lowercase.
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func int(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            repeat {
                raw[19 - n] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                n += 1
            } while magnitude > 0
            bytes.append(contentsOf: raw[(20 - n)...])
        }
    }

    private mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// As Foundation writes a `Double`: its shortest description, without a trailing `.0`.
    /// The one `Double` is a run's duration; were it ever not finite, it is written as 0
    /// (Foundation would refuse the whole manifest).
    private mutating func double(_ value: Double) {
        var text = value.isFinite ? value.description : "0"
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    /// As the `.iso8601` date strategy writes it: whole seconds, UTC.
    private mutating func date(_ value: Date) {
        let seconds = value.timeIntervalSince1970.rounded(.down)
        // Four-digit years, which every real post has; anything else as Foundation formats it.
        guard seconds >= 0, seconds < 253_402_300_800 else {
            string(value.formatted(.iso8601))
            return
        }
        var t = time_t(seconds)
        var tm = tm()
        gmtime_r(&t, &tm)
        raw("\""); padded(Int(tm.tm_year) + 1900, width: 4)
        raw("-"); padded(Int(tm.tm_mon) + 1, width: 2)
        raw("-"); padded(Int(tm.tm_mday), width: 2)
        raw("T"); padded(Int(tm.tm_hour), width: 2)
        raw(":"); padded(Int(tm.tm_min), width: 2)
        raw(":"); padded(Int(tm.tm_sec), width: 2)
        raw("Z\"")
    }

    private mutating func strings(_ values: [String]) {
        beginArray()
        for v in values { nextElement(); string(v) }
        endArray()
    }

    private mutating func array<T>(_ values: [T], _ each: (inout Self, T) -> Void) {
        beginArray()
        for v in values { nextElement(); each(&self, v) }
        endArray()
    }

    // Optional keys are left out when nil, as `encodeIfPresent` does.
    private mutating func key(_ name: StaticString, _ value: String?) {
        if let value { key(name); string(value) }
    }

    private mutating func key(_ name: StaticString, _ value: Int?) {
        if let value { key(name); int(value) }
    }

    // MARK: - The manifest's types, keys in sorted (byte) order

    /// The top level is the one object not in sorted order: what is known when a run
    /// starts comes first, the posts next, and what is known only at its end
    /// (failures, sources, summary) last, so a run writes its manifest as it goes
    /// (``ManifestStreamWriter``). Readers find members by name, so manifests written
    /// in the old, sorted order read the same.
    private mutating func write(_ m: Manifest) {
        beginObject()
        writeHead(version: m.version, generatedAt: m.generatedAt, tool: m.tool, cacheRoot: m.cacheRoot)
        key("tweets"); array(m.tweets) { $0.write($1) }
        key("included_tweets"); array(m.includedTweets) { $0.write($1) }
        writeTail(failures: m.failures, sources: m.sources, summary: m.summary)
        endObject()
    }

    private mutating func writeHead(version: Int, generatedAt: Date, tool: String, cacheRoot: String) {
        key("version"); int(version)
        key("generated_at"); date(generatedAt)
        key("tool"); string(tool)
        key("cache_root"); string(cacheRoot)
    }

    private mutating func writeTail(failures: [Manifest.Failure], sources: [Manifest.Source], summary: RunSummary) {
        key("failures"); array(failures) { $0.write($1) }
        key("sources"); array(sources) { $0.write($1) }
        key("summary"); write(summary)
    }

    private mutating func write(_ s: Manifest.Source) {
        beginObject()
        key("formats"); strings(s.formats)
        key("path"); string(s.path)
        key("problems"); array(s.problems) { $0.write($1) }
        key("query", s.query)
        if let search = s.search { key("search"); write(search) }
        key("tweets"); int(s.tweets)
        endObject()
    }

    private mutating func write(_ r: Manifest.SearchRecord) {
        beginObject()
        key("api"); string(r.api)
        key("base"); string(r.base)
        if let at = r.newestAt { key("newest_at"); date(at) }
        key("newest_id", r.newestID)
        key("query"); string(r.query)
        key("reached"); bool(r.reached)
        if let at = r.sinceAt { key("since_at"); date(at) }
        key("since_id", r.sinceID)
        endObject()
    }

    private mutating func write(_ p: Manifest.Problem) {
        beginObject()
        key("location"); string(p.location)
        key("message"); string(p.message)
        key("source"); string(p.source)
        endObject()
    }

    private mutating func write(_ f: Manifest.Failure) {
        beginObject()
        key("error"); write(f.error)
        key("role"); string(f.role)
        key("url"); string(f.url)
        endObject()
    }

    private mutating func write(_ e: MediaError) {
        beginObject()
        key("code"); string(e.code)
        key("http_status", e.httpStatus)
        key("message"); string(e.message)
        endObject()
    }

    private mutating func write(_ s: RunSummary) {
        beginObject()
        key("bytes_downloaded"); int(s.bytesDownloaded)
        key("cached"); int(s.cached)
        key("deduplicated"); int(s.deduplicated)
        key("derive_failed"); int(s.deriveFailed)
        key("derived"); int(s.derived)
        if let seconds = s.downloadSeconds { key("download_seconds"); double(seconds) }
        key("downloaded"); int(s.downloaded)
        key("failed"); int(s.failed)
        key("failures_by_reason")
        beginObject()
        for (reason, count) in s.failuresByReason.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            nextElement()
            string(reason)
            raw(" : ")
            int(count)
        }
        endObject()
        key("forgotten", s.forgotten)
        key("included_tweets"); int(s.includedTweets)
        key("manifest_path", s.manifestPath)
        key("problems"); int(s.problems)
        key("seconds"); double(s.seconds)
        if let store = s.store { key("store"); write(store) }
        key("tweets"); int(s.tweets)
        key("urls"); int(s.urls)
        endObject()
    }

    private mutating func write(_ s: StoreSummary) {
        beginObject()
        key("already_stored"); int(s.alreadyStored)
        key("bytes_from_store", s.bytesFromStore)
        key("bytes_uploaded"); int(s.bytesUploaded)
        key("copied_from_store", s.copiedFromStore)
        key("failed"); int(s.failed)
        key("location"); string(s.location)
        key("manifest_key", s.manifestKey)
        key("replaced", s.replaced)
        key("uploaded"); int(s.uploaded)
        endObject()
    }

    private mutating func write(_ t: ManifestTweet) {
        beginObject()
        key("author"); write(t.author)
        if let createdAt = t.createdAt { key("created_at"); date(createdAt) }
        key("entities"); write(t.entities)
        key("id"); string(t.id)
        key("lang", t.lang)
        key("media"); array(t.media) { $0.write($1) }
        key("network", t.network)
        key("query", t.query)
        key("referenced_tweets"); array(t.referencedTweets) { $0.write($1) }
        if let sensitive = t.sensitive { key("sensitive"); bool(sensitive) }
        key("source"); string(t.source)
        key("source_format"); string(t.sourceFormat)
        key("spoiler_text", t.spoilerText)
        key("text"); string(t.text)
        key("url", t.url)
        endObject()
    }

    private mutating func write(_ a: ManifestTweet.Author) {
        beginObject()
        if let avatar = a.avatar { key("avatar"); write(avatar) }
        key("id"); string(a.id)
        key("name"); string(a.name)
        key("screen_name"); string(a.screenName)
        endObject()
    }

    private mutating func write(_ m: ManifestTweet.Media) {
        beginObject()
        key("alt_text", m.altText)
        key("bytes", m.bytes)
        key("content_type", m.contentType)
        key("decode_warning", m.decodeWarning)
        key("derive_error", m.deriveError)
        if let error = m.error { key("error"); write(error) }
        key("height", m.height)
        key("id"); string(m.id)
        key("pdq", m.pdq)
        if let dihedral = m.pdqDihedral { key("pdq_dihedral"); strings(dihedral) }
        key("pdq_quality", m.pdqQuality)
        key("sha256", m.sha256)
        if let thumbnails = m.thumbnails { key("thumbnails"); array(thumbnails) { $0.write($1) } }
        if let tiles = m.tiles { key("tiles"); write(tiles) }
        key("type"); string(m.type)
        key("url", m.url)
        if let video = m.video { key("video"); write(video) }
        key("width", m.width)
        endObject()
    }

    private mutating func write(_ r: MediaRef) {
        beginObject()
        key("bytes", r.bytes)
        key("content_type", r.contentType)
        key("decode_warning", r.decodeWarning)
        key("derive_error", r.deriveError)
        if let error = r.error { key("error"); write(error) }
        key("height", r.height)
        key("pdq", r.pdq)
        if let dihedral = r.pdqDihedral { key("pdq_dihedral"); strings(dihedral) }
        key("pdq_quality", r.pdqQuality)
        key("sha256", r.sha256)
        if let thumbnails = r.thumbnails { key("thumbnails"); array(thumbnails) { $0.write($1) } }
        if let tiles = r.tiles { key("tiles"); write(tiles) }
        key("url"); string(r.url)
        key("width", r.width)
        endObject()
    }

    private mutating func write(_ t: ThumbnailRef) {
        beginObject()
        key("height"); int(t.height)
        key("path"); string(t.path)
        key("sha256", t.sha256)
        key("size"); int(t.size)
        key("width"); int(t.width)
        endObject()
    }

    private mutating func write(_ t: TileRefs) {
        beginObject()
        key("bytes", t.bytes)
        key("dzi", t.dzi)
        key("iiif", t.iiif)
        key("pack", t.pack)
        key("tile_size"); int(t.tileSize)
        endObject()
    }

    private mutating func write(_ e: ManifestTweet.Entities) {
        beginObject()
        key("cashtags"); array(e.cashtags) { $0.write($1) }
        key("hashtags"); array(e.hashtags) { $0.write($1) }
        key("media"); array(e.media) { w, m in
            w.beginObject()
            w.key("end"); w.int(m.end)
            w.key("media_id"); w.string(m.mediaID)
            w.key("start"); w.int(m.start)
            w.endObject()
        }
        key("mentions"); array(e.mentions) { w, m in
            w.beginObject()
            w.key("end"); w.int(m.end)
            w.key("id", m.id)
            w.key("start"); w.int(m.start)
            w.key("username"); w.string(m.username)
            w.endObject()
        }
        key("urls"); array(e.urls) { w, l in
            w.beginObject()
            w.key("display_url", l.displayURL)
            w.key("end"); w.int(l.end)
            w.key("expanded_url", l.expandedURL)
            w.key("start"); w.int(l.start)
            w.key("url"); w.string(l.url)
            w.endObject()
        }
        endObject()
    }

    private mutating func write(_ t: ManifestTweet.Entities.Tag) {
        beginObject()
        key("end"); int(t.end)
        key("start"); int(t.start)
        key("tag"); string(t.tag)
        endObject()
    }

    private mutating func write(_ r: ManifestTweet.Reference) {
        beginObject()
        key("id"); string(r.id)
        key("type"); string(r.type)
        endObject()
    }
}

// MARK: - Streaming

/// The pieces ``ManifestStreamWriter`` puts together: the writer's state is kept
/// across them, so the bytes are the ones ``ManifestJSONWriter/encode(_:)`` writes
/// for the same manifest.
extension ManifestJSONWriter {
    /// `{` and the members known at the start, then the opened `tweets` array.
    mutating func beginStream(version: Int, generatedAt: Date, tool: String, cacheRoot: String) {
        beginObject()
        writeHead(version: version, generatedAt: generatedAt, tool: tool, cacheRoot: cacheRoot)
        key("tweets"); beginArray()
    }

    /// A writer positioned inside an array one level below the top object, for
    /// elements written apart (to a spill file) and copied into the manifest later.
    static func element() -> ManifestJSONWriter {
        var w = ManifestJSONWriter()
        w.counts = [1, 0]
        return w
    }

    /// Elements written so far in the innermost array.
    var elementCount: Int { counts.last ?? 0 }

    mutating func post(_ t: ManifestTweet) { nextElement(); write(t) }
    mutating func failure(_ f: Manifest.Failure) { nextElement(); write(f) }

    /// Ends the open array, which holds `count` elements however they were written.
    mutating func endArray(count: Int) {
        continueArray(count: count)
        endArray()
    }

    /// Takes up the open array after `count` elements written elsewhere.
    mutating func continueArray(count: Int) { counts[counts.count - 1] = count }

    /// Opens a member's array, for elements copied in from a spill file.
    mutating func beginArray(named name: StaticString) { key(name); beginArray() }

    /// The members known at the end, and the closing `}`.
    mutating func endStream(sources: [Manifest.Source], summary: RunSummary) {
        key("sources"); array(sources) { $0.write($1) }
        key("summary"); write(summary)
        endObject()
    }

    /// Hands over the bytes written so far and starts afresh (the state is kept).
    mutating func drain() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }
}

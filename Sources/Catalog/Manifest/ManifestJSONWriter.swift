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
    var bytes: [UInt8] = []
    /// No line breaks, indents or spaces: as Foundation writes without `.prettyPrinted`
    /// (for a post in an API answer, ``ManifestTweet/compactJSON(adding:fields:)``).
    var compact = false
    /// Elements written so far in each open object or array, innermost last (so its
    /// count is the nesting depth).
    var counts: [Int] = []

    /// The manifest's JSON.
    static func encode(_ manifest: Manifest) -> Data {
        var w = ManifestJSONWriter()
        // About 1 KB per tweet; growing past the guess costs one copy.
        w.bytes.reserveCapacity(4096 + (manifest.tweets.count + manifest.includedTweets.count) * 1100)
        w.write(manifest)
        return Data(w.bytes)
    }

    // MARK: - Structure

    mutating func beginObject() { open(UInt8(ascii: "{")) }
    mutating func endObject() { close(UInt8(ascii: "}")) }
    mutating func beginArray() { open(UInt8(ascii: "[")) }
    mutating func endArray() { close(UInt8(ascii: "]")) }

    mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        counts.append(0)
    }

    /// `{` and `}` (or `[` and `]`) on lines of their own, an empty one with a blank
    /// line between, as Foundation's pretty printer writes them.
    mutating func close(_ bracket: UInt8) {
        let count = counts.removeLast()
        if compact {
            bytes.append(bracket)
            return
        }
        bytes.append(0x0A)
        if count == 0 { bytes.append(0x0A) }
        indent()
        bytes.append(bracket)
    }

    /// Starts the next element of the innermost object or array on its own line.
    mutating func nextElement() {
        if counts[counts.count - 1] > 0 { bytes.append(UInt8(ascii: ",")) }
        counts[counts.count - 1] += 1
        if compact { return }
        bytes.append(0x0A)
        indent()
    }

    mutating func indent() {
        for _ in 0..<counts.count { bytes.append(0x20); bytes.append(0x20) }
    }

    /// The next key of the innermost object; keys must come in sorted order (but for
    /// the top level's, see ``write(_:)-manifest``).
    mutating func key(_ name: StaticString) {
        nextElement()
        bytes.append(UInt8(ascii: "\""))
        raw(name)
        bytes.append(UInt8(ascii: "\""))
        colon()
    }

    /// Between a key and its value.
    mutating func colon() {
        if compact { bytes.append(UInt8(ascii: ":")) } else { raw(" : ") }
    }

    /// Bytes written as they are (ASCII the writer itself spells), with no allocation.
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `value` in decimal, zero-padded to `width` digits (dates' fields).
    mutating func padded(_ value: Int, width: Int) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    // MARK: - Values

    mutating func string(_ value: String) {
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

    mutating func escape(_ byte: UInt8) {
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

    mutating func int(_ value: Int) {
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

    mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// As Foundation writes a `Double`: its shortest description, without a trailing `.0`.
    /// The one `Double` is a run's duration; were it ever not finite, it is written as 0
    /// (Foundation would refuse the whole manifest).
    mutating func double(_ value: Double) {
        var text = value.isFinite ? value.description : "0"
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    /// As the `.iso8601` date strategy writes it: whole seconds, UTC.
    mutating func date(_ value: Date) {
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

    mutating func strings(_ values: [String]) {
        beginArray()
        for v in values { nextElement(); string(v) }
        endArray()
    }

    mutating func array<T>(_ values: [T], _ each: (inout Self, T) -> Void) {
        beginArray()
        for v in values { nextElement(); each(&self, v) }
        endArray()
    }

    // Optional keys are left out when nil, as `encodeIfPresent` does.
    mutating func key(_ name: StaticString, _ value: String?) {
        if let value { key(name); string(value) }
    }

    mutating func key(_ name: StaticString, _ value: Int?) {
        if let value { key(name); int(value) }
    }
}


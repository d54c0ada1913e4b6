import Foundation
import Testing
import TweetModel
@testable import Catalog

/// The scan of a manifest passes objects and arrays by SSE2 (`tc_json_container_end`):
/// it must end every container where the scanner's own walk does, give up where that
/// walk does, and leave anything nested past 64 levels to it.
@Suite struct ContainerEndTests {
    /// A fixed sequence, so a failure is the same failure the next time.
    struct Sequence {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    /// Where the scanner ends the value at 0: with the fast path and without, and
    /// where the fast path alone ends it (nil when it gives up).
    static func ends(_ bytes: [UInt8]) -> (with: Int?, without: Int?, fast: Int?) {
        bytes.withUnsafeBytes { raw in
            var plain = JSONStructureScanner(bytes: raw)
            var fast = JSONStructureScanner(bytes: raw, containerEnd: ManifestFile.containerEnd)
            let without = plain.skipValue() ? plain.position : nil
            let with = fast.skipValue() ? fast.position : nil
            #expect(plain.position == fast.position, "where a failed walk stopped")
            return (with, without, ManifestFile.containerEnd(raw, 0))
        }
    }

    /// Pieces that matter to the walk, and runs of bytes that do not, of lengths that
    /// put them across the fast path's 64-byte blocks.
    static func noise(_ random: inout Sequence, length: Int) -> [UInt8] {
        let pieces: [[UInt8]] = ["{", "}", "[", "]", "\"", "\\", "\\\"", "\\\\", ",", ":", "a", "é", "\n"].map { Array($0.utf8) }
            + [[0x00], [0xFF], [0x5B | 0x20], [0x7D & ~0x20]]
        var bytes: [UInt8] = [random.next(2) == 0 ? UInt8(ascii: "{") : UInt8(ascii: "[")]
        while bytes.count < length {
            if random.next(4) == 0 {
                bytes += Array(repeating: random.next(2) == 0 ? 0x20 : UInt8(ascii: "x"), count: random.next(70))
            } else {
                bytes += pieces[random.next(pieces.count)]
            }
        }
        return bytes
    }

    /// Well-formed JSON: nested objects and arrays, strings with escapes (quotes,
    /// backslashes, `\u` sequences), brackets inside strings, pretty-printed runs.
    static func json(_ random: inout Sequence, depth: Int) -> String {
        func string() -> String {
            let parts = ["plain", "{[", "]}", "\\\"", "\\\\", "\\u005B", "é", String(repeating: " ", count: random.next(80)),
                         String(repeating: "w", count: random.next(130))]
            return "\"" + (0..<random.next(6)).map { _ in parts[random.next(parts.count)] }.joined() + "\""
        }
        guard depth > 0, random.next(4) != 0 else { return random.next(3) == 0 ? "12" : string() }
        let count = random.next(5)
        let indent = "\n" + String(repeating: "  ", count: random.next(20))
        if random.next(2) == 0 {
            return "{" + (0..<count).map { _ in indent + string() + " : " + json(&random, depth: depth - 1) }.joined(separator: ",") + indent + "}"
        }
        return "[" + (0..<count).map { _ in indent + json(&random, depth: depth - 1) }.joined(separator: ",") + "]"
    }

    @Test func endsWellFormedJSONWhereTheScannerDoes() {
        var random = Sequence(state: 53)
        var passedFast = 0
        for _ in 0..<3_000 {
            let text = "[" + Self.json(&random, depth: 6) + "]"
            let bytes = Array(text.utf8) + Array(" trailing }]".utf8)
            let (with, without, fast) = Self.ends(bytes)
            #expect(with == without && without == text.utf8.count, "\(text.prefix(200))")
            if fast != nil { passedFast += 1 }
            #expect(fast == nil || fast == without)
        }
        // The fast path took them, not the fallback.
        #expect(passedFast == 3_000)
    }

    @Test func givesUpWhereTheScannerDoesOnAnyBytes() {
        var random = Sequence(state: 2026)
        for round in 0..<20_000 {
            let bytes = Self.noise(&random, length: 1 + random.next(round % 10 == 0 ? 900 : 200))
            let (with, without, fast) = Self.ends(bytes)
            #expect(with == without, "\(bytes)")
            #expect(fast == nil || fast == without, "\(bytes)")
        }
    }

    /// Escapes at every place of a 64-byte block, and across blocks: a backslash as
    /// the block's last byte takes the next block's first with it.
    @Test func escapesAtEveryPlaceOfABlock() {
        for pad in 0..<130 {
            for escape in ["\\\"{", "\\\\", "\\{", "\\\\\\\"]"] {
                let text = "{\"" + String(repeating: "a", count: pad) + escape + "\" : [1, {\"}\" : \"]\"}], \"b\" : \"" + escape + "\"}"
                let bytes = Array(text.utf8) + Array(repeating: UInt8(ascii: " "), count: 70) + Array("]]".utf8)
                let (with, without, fast) = Self.ends(bytes)
                #expect(with == without && without == text.utf8.count, "\(pad) \(escape)")
                #expect(fast == without, "\(pad) \(escape)")
            }
        }
    }

    /// Every byte value, at random places, in both states of the walk.
    @Test func everyByteValueAnywhere() {
        var random = Sequence(state: 7)
        for _ in 0..<5_000 {
            var bytes = Self.noise(&random, length: 1 + random.next(300))
            for _ in 0..<random.next(12) { bytes[random.next(bytes.count)] = UInt8(random.next(256)) }
            bytes[0] = random.next(2) == 0 ? UInt8(ascii: "{") : UInt8(ascii: "[")
            let (with, without, fast) = Self.ends(bytes)
            #expect(with == without, "\(bytes)")
            #expect(fast == nil || fast == without, "\(bytes)")
        }
    }

    /// Past 64 levels the fast path hands the container back, and the scanner's walk,
    /// which keeps deeper levels in an array, ends it.
    @Test func leavesDeepNestingToTheScanner() {
        for depth in [63, 64, 65, 200] {
            let text = String(repeating: "[{\"k\":", count: depth / 2) + String(repeating: "[", count: depth % 2)
                + String(repeating: "]", count: depth % 2) + String(repeating: "}]", count: depth / 2)
            let (with, without, fast) = Self.ends(Array(text.utf8))
            #expect(with == text.utf8.count && without == with)
            #expect((fast != nil) == (depth <= 64))
            // A wrong close past the depth is still found.
            let wrong = Array(text.utf8.dropLast()) + [UInt8(ascii: "}")]
            #expect(Self.ends(wrong).with == nil && Self.ends(wrong).without == nil)
        }
    }

    /// A manifest as a run writes it opens through the fast path, post for post as before.
    @Test func aManifestsPostsAreWhereTheScannerPutsThem() throws {
        let posts = (0..<300).map { n in
            PostCatalogTests.tweet("\(n)", at: Double(n), user: "u\(n % 7)", tags: ["T\(n % 3)"],
                                   text: String(repeating: "say \"{hi}\" \\ ", count: n % 9))
        }
        let data = PostCatalogTests.manifest(posts, at: 1, root: URL(fileURLWithPath: "/tmp/x")).encoded()
        let file = try ManifestFile(bytes: data)
        var ranges: [Range<Int>] = []
        try file.forEachPost { _, range in ranges.append(range) }
        #expect(ranges.count == 300)
        data.withUnsafeBytes { raw in
            for range in ranges {
                var scanner = JSONStructureScanner(bytes: raw, position: range.lowerBound)
                #expect(scanner.skipValue() && scanner.position == range.upperBound)
                #expect(ManifestFile.containerEnd(raw, range.lowerBound) == range.upperBound)
            }
        }
    }
}

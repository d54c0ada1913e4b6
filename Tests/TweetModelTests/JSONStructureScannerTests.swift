import Foundation
import Testing
@testable import TweetModel

/// The scanner skips strings eight bytes at a time and keeps its brackets in a word:
/// it must end where a byte-by-byte walk with a stack of brackets ends, and agree on
/// what does not add up, wherever the quotes, escapes and brackets fall.
@Suite struct JSONStructureScannerTests {
    /// The walk the scanner replaced: a byte at a time, the open brackets in an array.
    static func reference(_ bytes: [UInt8]) -> (ok: Bool, position: Int) {
        var position = 0
        func skipString() -> Bool {
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
        guard let b = bytes.first else { return (false, 0) }
        if b == UInt8(ascii: "\"") { return (skipString(), position) }
        if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
            var open: [UInt8] = []
            while position < bytes.count {
                let c = bytes[position]
                if c == UInt8(ascii: "\"") {
                    guard skipString() else { return (false, position) }
                    continue
                }
                position += 1
                if c == UInt8(ascii: "{") {
                    open.append(UInt8(ascii: "}"))
                } else if c == UInt8(ascii: "[") {
                    open.append(UInt8(ascii: "]"))
                } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                    guard open.popLast() == c else { return (false, position) }
                    if open.isEmpty { return (true, position) }
                }
            }
            return (false, position)
        }
        while position < bytes.count {
            let c = bytes[position]
            if c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]") || JSONStructureScanner.isSpace(c) { break }
            position += 1
        }
        return (true, position)
    }

    static func scanned(_ bytes: [UInt8]) -> (ok: Bool, position: Int) {
        bytes.withUnsafeBytes { raw in
            var scanner = JSONStructureScanner(bytes: raw)
            let ok = scanner.skipValue()
            return (ok, scanner.position)
        }
    }

    @Test func randomBytesEndWhereTheByteWalkEnds() {
        var random = SystemRandomNumberGenerator()
        let alphabet = Array(#""\{}[],: a1n"#.utf8) + [0xC3, 0xA9, 0x22, 0x5C]
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...96, using: &random)
            var bytes = (0..<count).map { _ in alphabet.randomElement(using: &random)! }
            if !bytes.isEmpty, Bool.random(using: &random) { bytes[0] = [UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\"")].randomElement(using: &random)! }
            let expected = Self.reference(bytes), got = Self.scanned(bytes)
            #expect(got.ok == expected.ok, "\(String(decoding: bytes, as: UTF8.self))")
            if expected.ok { #expect(got.position == expected.position, "\(String(decoding: bytes, as: UTF8.self))") }
            if got.ok != expected.ok || (expected.ok && got.position != expected.position) { return }
        }
    }

    /// A quote or a backslash at every offset of a long string, inside nested values.
    @Test func everyOffsetOfAnEscapeOrAnEnd() {
        for length in 0..<40 {
            for special in [#"\""#, #"\\"#, #"\u00e9"#, "\u{1F600}"] {
                let text = String(repeating: "x", count: length) + special + String(repeating: "y", count: 17 - length % 17)
                for json in [#""\#(text)""#, #"{"a": ["\#(text)", {"b": "\#(text)"}], "c": 1}"#, #"[[["\#(text)"]]] ,"#] {
                    let bytes = Array(json.utf8)
                    let expected = Self.reference(bytes), got = Self.scanned(bytes)
                    #expect(got.ok && expected.ok && got.position == expected.position, "\(json)")
                    // And cut short anywhere: never a value.
                    for cut in stride(from: 1, to: bytes.count, by: 3) {
                        let short = Array(bytes[..<cut])
                        #expect(Self.scanned(short).ok == Self.reference(short).ok, "\(json) cut at \(cut)")
                    }
                }
            }
        }
    }

    /// Deeper than the word of brackets holds: the rest are kept in an array.
    @Test func nestingDeeperThanSixtyFourLevels() {
        for depth in [63, 64, 65, 130] {
            let good = String(repeating: "[{\"k\":", count: depth) + "1" + String(repeating: "}]", count: depth)
            #expect(Self.scanned(Array(good.utf8)) == (true, good.utf8.count))
            let crossed = String(repeating: "[{\"k\":", count: depth) + "1" + String(repeating: "]}", count: depth)
            #expect(!Self.scanned(Array(crossed.utf8)).ok)
            #expect(Self.reference(Array(crossed.utf8)).ok == false)
        }
    }

    /// Runs of white space of every length, where a pretty printer puts them (after a
    /// line break, around a colon) and inside strings, and cut short anywhere: the
    /// scanner skips spaces eight at a time and must stop on the first byte that is not one.
    @Test func runsOfSpacesOfEveryLength() {
        for run in 0..<40 {
            let pad = String(repeating: " ", count: run)
            for json in ["{\n\(pad)\"a\"\(pad):\(pad)[\n\(pad)1,\(pad)\"\(pad)x\(pad)\"\n\(pad)]\(pad)\t\r\n\(pad)}",
                         "[\(pad)]", "[\(pad)\n\(pad)true\(pad)]"] {
                let bytes = Array(json.utf8)
                let expected = Self.reference(bytes), got = Self.scanned(bytes)
                #expect(got.ok && expected.ok && got.position == expected.position, "\(run): \(json)")
                for cut in 1..<bytes.count {
                    let short = Array(bytes[..<cut])
                    #expect(Self.scanned(short).ok == Self.reference(short).ok, "\(json) cut at \(cut)")
                }
            }
            let spaces = Array((pad + "\n" + pad + "x" + pad).utf8)
            spaces.withUnsafeBytes { raw in
                var scanner = JSONStructureScanner(bytes: raw)
                scanner.skipSpace()
                #expect(scanner.position == 2 * run + 1)
                scanner.position += 1
                scanner.skipSpace()
                #expect(scanner.atEnd)
            }
        }
    }
}

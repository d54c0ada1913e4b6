import Foundation
import Testing
@testable import Catalog

/// The reader passes plain ASCII eight bytes at a time, and skips a string of it
/// without making it. Wherever a quote, an escape, a control character or a byte
/// beyond ASCII falls, a string it reads must be the string Foundation reads, and a
/// skip must take exactly what a read takes, and refuse what a read refuses.
@Suite struct StrictJSONReaderTests {
    static let specials: [[UInt8]] = [
        Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\n"#.utf8), Array(#"\u00e9"#.utf8), Array(#"\ud83d\ude00"#.utf8),
        Array("é".utf8), Array("\u{1F600}".utf8), [0x09], [0x1F], [0x7F], [0xFF], [0xC3], Array(#"\x"#.utf8), Array(#"\ud83d"#.utf8),
        Array("\"".utf8),
    ]

    @Test func stringsReadAsFoundationReadsThemAndSkipsTakeWhatReadsTake() throws {
        for offset in 0..<20 {
            for special in Self.specials {
                for tail in [0, 1, 7, 8, 9, 17] {
                    let body = Array(repeating: UInt8(ascii: "a"), count: offset) + special + Array(repeating: UInt8(ascii: "b"), count: tail)
                    let json = [UInt8(ascii: "\"")] + body + [UInt8(ascii: "\""), UInt8(ascii: ","), UInt8(ascii: " ")]
                    let label = String(decoding: json, as: UTF8.self)
                    let (read, readEnd, skipped, skipEnd): (String?, Int, Bool, Int) = json.withUnsafeBytes { raw in
                        var reader = StrictJSONReader(raw)
                        let read = reader.string()
                        let readEnd = reader.position
                        var skipper = StrictJSONReader(raw)
                        let skipped = skipper.skip()
                        return (read, readEnd, skipped, skipper.position)
                    }
                    #expect(skipped == (read != nil), "\(label)")
                    if let read {
                        #expect(skipEnd == readEnd, "\(label)")
                        // A lone quote ends the string early; what follows is no JSON.
                        guard readEnd == json.count - 2 else { continue }
                        let foundation = try? JSONDecoder().decode(String.self, from: Data(json.dropLast(2)))
                        #expect(read == foundation, "\(label)")
                    }
                    // Cut short anywhere: neither reads nor skips.
                    for cut in stride(from: 1, to: json.count - 2, by: 2) {
                        let short = Array(json[..<cut])
                        short.withUnsafeBytes { raw in
                            var reader = StrictJSONReader(raw)
                            var skipper = StrictJSONReader(raw)
                            #expect(reader.string() == nil && !skipper.skip(), "\(label) cut at \(cut)")
                        }
                    }
                }
            }
        }
    }

    /// Indentation of every length between members, as a pretty printer writes it.
    @Test func membersAfterRunsOfSpaces() {
        for run in 0..<20 {
            let pad = String(repeating: " ", count: run)
            let json = Array("{\n\(pad)\"a\"\(pad):\(pad)\"x\",\n\(pad)\"b\" : [\n\(pad)1\n\(pad)]\n\(pad)}\(pad)".utf8)
            json.withUnsafeBytes { raw in
                var keys: [String] = []
                let whole: Bool? = StrictJSONReader.whole(raw) { r in
                    r.object { r, key in
                        keys.append(key)
                        return r.skip()
                    } ? true : nil
                }
                #expect(whole == true && keys == ["a", "b"], "\(run)")
            }
        }
    }
}

import Foundation
import Testing
@testable import Catalog

/// Tags and handles are stored as ``PostFilter/normalise(_:dropping:)`` makes them
/// and asked for the same way: its byte-wise way for ASCII must give what the
/// general one (Foundation's trimming, Swift's lower-casing) gives.
@Suite struct PostFilterTests {
    /// The general way, as it was before ASCII had a way of its own.
    static func general(_ text: String, dropping prefixes: String) -> String {
        var t = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        while let first = t.first, prefixes.contains(first) { t = t.dropFirst() }
        return t.lowercased()
    }

    @Test func everyASCIICharacterAtEitherEndAndInsideIsNormalisedAsBefore() {
        for byte in UInt8(0)..<0x80 {
            let c = String(UnicodeScalar(byte))
            for text in [c, c + "Ab", "Ab" + c, "x" + c + "Y", c + c + "#Tag" + c, "#" + c + "Tag", "@@" + c + "Me", "$" + c] {
                for prefixes in [PostFilter.tagMarks, PostFilter.handleMark, ""] {
                    #expect(PostFilter.normalise(text, dropping: prefixes) == Self.general(text, dropping: prefixes),
                            "\(Array(text.utf8)) dropping \(prefixes)")
                }
                #expect(PostFilter.trimmed(text) == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(Array(text.utf8))")
            }
        }
    }

    @Test func textBeyondASCIIGoesTheGeneralWay() {
        for text in ["\u{00A0}#Ünïcode\u{2003}", "@\u{301}handle", "\u{85}tag\u{85}", " #ΣΊΣΥΦΟΣ ", "#\r\nTag", "\u{3000}@Me"] {
            #expect(PostFilter.normalise(text, dropping: PostFilter.tagMarks) == Self.general(text, dropping: PostFilter.tagMarks))
            #expect(PostFilter.normalise(text, dropping: PostFilter.handleMark) == Self.general(text, dropping: PostFilter.handleMark))
            #expect(PostFilter.trimmed(text) == text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(PostFilter(tag: " #Swift ").tag == "swift" && PostFilter(user: "@@Bo").user == "bo")
        #expect(PostFilter(tag: " # ").tag == nil && PostFilter(query: " \t#a b\n").query == "#a b")
    }
}

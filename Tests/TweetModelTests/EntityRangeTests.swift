import Foundation
import Testing
@testable import TweetModel

@Suite("Entity ranges count Unicode code points")
struct EntityRangeTests {
    // 👩‍👩‍👧 is 5 scalars (3 emoji + 2 ZWJ), 🇮🇪 is 2, "e\u{301}" is 2, 𝕏 is 1 (2 in UTF-16).
    static let text = "👩\u{200D}👩\u{200D}👧 #family 🇮🇪 @ucd_dublin cafe\u{301} #cafe\u{301} 𝕏 $TWTR https://t.co/abc123"
    static let expected: [(start: Int, end: Int, text: String)] = [
        (6, 13, "#family"), (17, 28, "@ucd_dublin"), (35, 41, "#cafe\u{301}"), (44, 49, "$TWTR"), (50, 69, "https://t.co/abc123"),
    ]

    /// The same tweet as v1.1 serves it, with non-ASCII written as \u escapes (surrogate pairs for astral characters).
    static let v1JSON = #"""
    {"id_str": "1", "created_at": "Wed Oct 10 20:19:24 +0000 2018",
     "full_text": "\ud83d\udc69\u200d\ud83d\udc69\u200d\ud83d\udc67 #family \ud83c\uddee\ud83c\uddea @ucd_dublin cafe\u0301 #cafe\u0301 \ud835\udd4f $TWTR https:\/\/t.co\/abc123",
     "entities": {"hashtags": [{"text": "family", "indices": [6, 13]}, {"text": "cafe\u0301", "indices": [35, 41]}],
                  "symbols": [{"text": "TWTR", "indices": [44, 49]}],
                  "user_mentions": [{"screen_name": "ucd_dublin", "id_str": "5", "indices": [17, 28]}],
                  "urls": [{"url": "https:\/\/t.co\/abc123", "indices": [50, 69]}]},
     "user": {"id_str": "9", "screen_name": "x", "name": "X"}}
    """#

    /// The same tweet as v2 serves it, raw UTF-8.
    static let v2JSON = #"""
    {"data": [{"id": "1", "text": "\#(text)",
     "entities": {"hashtags": [{"start": 6, "end": 13, "tag": "family"}, {"start": 35, "end": 41, "tag": "cafe\#u{301}"}],
                  "cashtags": [{"start": 44, "end": 49, "tag": "TWTR"}],
                  "mentions": [{"start": 17, "end": 28, "username": "ucd_dublin"}],
                  "urls": [{"start": 50, "end": 69, "url": "https://t.co/abc123"}]}}]}
    """#

    @Test(arguments: ["v1", "v2"])
    func everyEntitySlicesToItsText(_ version: String) throws {
        let tweet = try #require(Fixtures.parse(version == "v1" ? Self.v1JSON : Self.v2JSON).tweets.first)
        #expect(Fixtures.scalars(tweet.text) == Fixtures.scalars(Self.text))
        let entities = tweet.entities
        let ranges = entities.hashtags.map(\.range) + entities.mentions.map(\.range)
            + entities.cashtags.map(\.range) + entities.urls.map(\.range)
        #expect(ranges.sorted() == Self.expected.map { TextRange(start: $0.start, end: $0.end)! })
        for (start, end, expected) in Self.expected {
            let slice = try #require(tweet.text.substring(codePoints: TextRange(start: start, end: end)!))
            // Scalar comparison: String == would accept a precomposed é for e + U+0301.
            #expect(Fixtures.scalars(slice) == Fixtures.scalars(expected))
        }
        #expect(entities.hashtags.map(\.tag) == ["family", "cafe\u{301}"])
        #expect(entities.cashtags.map(\.tag) == ["TWTR"])
        #expect(entities.mentions.map(\.username) == ["ucd_dublin"])
    }

    @Test func utf16OrGraphemeOffsetsWouldBeWrong() {
        // Guards the unit itself: the same hashtag in UTF-16 units and in Characters.
        let hashtag = Self.text.range(of: "#family")!
        #expect(Self.text.utf16.distance(from: Self.text.startIndex, to: hashtag.lowerBound) == 9)
        #expect(Self.text.distance(from: Self.text.startIndex, to: hashtag.lowerBound) == 2)
        #expect(Self.text.unicodeScalars.distance(from: Self.text.startIndex, to: hashtag.lowerBound) == 6)
    }

    @Test func substringReturnsNilOutsideTheText() {
        let text = "🇮🇪 ok"
        #expect(text.codePointCount == 5)
        #expect(text.substring(codePoints: TextRange(start: 0, end: 5)!) == "🇮🇪 ok")
        #expect(text.substring(codePoints: TextRange(start: 5, end: 5)!) == "")
        #expect(text.substring(codePoints: TextRange(start: 3, end: 6)!) == nil)
        #expect(text.substring(codePoints: TextRange(start: 6, end: 6)!) == nil)
        #expect(text.substring(codePoints: TextRange(start: Int.max - 1, end: Int.max)!) == nil)
        // Splitting a flag is what the offsets ask for; it yields one regional indicator, not a trap.
        #expect(text.substring(codePoints: TextRange(start: 1, end: 2)!).map(Fixtures.scalars) == ["\u{1F1EA}"])
    }

    @Test func invalidRangesCannotBeBuilt() throws {
        #expect(TextRange(start: -1, end: 2) == nil)
        #expect(TextRange(start: 3, end: 2) == nil)
        #expect(TextRange(start: 2, end: 2)?.count == 0)
        let bad = Data(#"{"start": 5, "end": 1}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(TextRange.self, from: bad) }
        let good = try JSONDecoder().decode(TextRange.self, from: Data(#"{"start": 1, "end": 5}"#.utf8))
        #expect(good == TextRange(start: 1, end: 5))
    }

    @Test func rangesBeyondTheTextAreDroppedNotClamped() throws {
        let json = #"""
        {"data": [{"id": "1", "text": "short 👩‍👩‍👧",
          "entities": {"hashtags": [{"start": 6, "end": 12, "tag": "too_far"}, {"start": 40, "end": 44, "tag": "way_out"}],
                       "mentions": [{"start": 0, "end": 5, "username": "short"}]}}]}
        """#
        let tweet = try #require(Fixtures.parse(json).tweets.first)
        #expect(tweet.text.codePointCount == 11)
        #expect(tweet.entities.hashtags.isEmpty)
        #expect(tweet.entities.mentions.map(\.range) == [TextRange(start: 0, end: 5)!])
    }

    @Test func escapesBeforeEmojiShiftRangesCorrectly() throws {
        // "&lt;3" before an emoji and a ZWJ sequence: both unit and escape handling at once.
        let json = #"{"id_str": "1", "full_text": "&lt;3 \ud83c\uddee\ud83c\uddea &amp; #\u00e9ire", "entities": {"hashtags": [{"text": "\u00e9ire", "indices": [15, 20]}]}}"#
        let tweet = try #require(Fixtures.parse(json).tweets.first)
        #expect(tweet.text == "<3 🇮🇪 & #éire")
        let hashtag = try #require(tweet.entities.hashtags.first)
        #expect(hashtag.range == TextRange(start: 8, end: 13))
        #expect(tweet.text.substring(codePoints: hashtag.range) == "#éire")
    }
}

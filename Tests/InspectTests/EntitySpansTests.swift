import BlobStore
import Catalog
import Inspect
@testable import Pipeline
import Testing

@Suite struct EntitySpansTests {
    typealias E = ManifestTweet.Entities

    func entities(hashtags: [(Int, Int)] = [], mentions: [(Int, Int)] = [], urls: [(Int, Int, String?)] = []) -> E {
        E(hashtags: hashtags.map { .init(start: $0.0, end: $0.1, tag: "t") }, cashtags: [],
          mentions: mentions.map { .init(start: $0.0, end: $0.1, username: "u", id: nil) },
          urls: urls.map { .init(start: $0.0, end: $0.1, url: "u", expandedURL: nil, displayURL: $0.2) }, media: [])
    }

    @Test func countsCodePointsNotUTF16OrGraphemes() {
        // 🏳️‍🌈 is 4 scalars (5 UTF-16 units, 1 grapheme), 👍🏽 2 scalars, é here 2 scalars.
        let text = "🏳️‍🌈👍🏽 e\u{301} #ucd @bob"
        let spans = EntitySpans(text: text, entities: entities(hashtags: [(10, 14)], mentions: [(15, 19)]))
        #expect(spans.segments.map(\.text) == ["🏳️‍🌈👍🏽 e\u{301} ", "#ucd", " ", "@bob"])
        #expect(spans.segments.map(\.kind) == [nil, .hashtag, nil, .mention])
        let style = Style(enabled: true)
        #expect(spans.rendered(style) == "🏳️‍🌈👍🏽 e\u{301} \u{1B}[33m#ucd\u{1B}[0m \u{1B}[35m@bob\u{1B}[0m")
        #expect(spans.rendered(Style(enabled: false)) == text)
    }

    @Test func hostileRangesAreDroppedNotTrappedOn() {
        let text = "ab #c"
        let spans = EntitySpans(text: text, entities: entities(
            hashtags: [(3, 5), (4, 9), (-1, 2), (5, 3), (2, 2)], mentions: [(3, 4)], urls: [(100, 200, "x")]))
        // (3,5) wins; (3,4) overlaps it and everything else is out of bounds or empty.
        #expect(spans.segments.map(\.text) == ["ab ", "#c"])
        #expect(EntitySpans(text: "", entities: entities(hashtags: [(0, 1)])).segments.isEmpty)
    }

    @Test func urlsShowTheirDisplayFormAndControlCharactersAreNeutralised() {
        let text = "see https://t.co/x \u{1B}[2Jboom\nline"
        let spans = EntitySpans(text: text, entities: entities(urls: [(4, 18, "example.com/a")]))
        #expect(spans.plainText == "see example.com/a  [2Jboom\nline")
        #expect(!spans.rendered(Style(enabled: true)).contains("\u{1B}[2J"))
    }
}

@Suite struct SmallPartsTests {
    @Test func colourFollowsTTYAndNO_COLOR() {
        #expect(ColorMode.auto.enabled(isTTY: true, environment: [:]))
        #expect(!ColorMode.auto.enabled(isTTY: false, environment: [:]))
        #expect(!ColorMode.auto.enabled(isTTY: true, environment: ["NO_COLOR": "1"]))
        #expect(ColorMode.auto.enabled(isTTY: true, environment: ["NO_COLOR": ""]))
        #expect(ColorMode.always.enabled(isTTY: false, environment: ["NO_COLOR": "1"]))
        #expect(!ColorMode.never.enabled(isTTY: true, environment: [:]))
    }

    @Test func sizes() {
        #expect(ByteCount.parse("2GB") == 2 << 30)
        #expect(ByteCount.parse("1.5k") == 1536)
        #expect(ByteCount.parse("100") == 100)
        #expect(ByteCount.parse("-1") == nil)
        #expect(ByteCount.parse("lots") == nil)
    }

    @Test func exportNamesAreSafe() throws {
        let name = Exporter.name(template: Exporter.defaultTemplate,
                                 values: ["screen_name": "../../etc", "tweet_id": "1", "n": "2", "ext": "jpg"])
        #expect(!name.contains("/"))
        #expect(!name.hasPrefix("."))
        #expect(throws: InspectError.self) { try Exporter.validate(template: "{screen_name}.{ext}") }
        #expect(throws: InspectError.self) { try Exporter.validate(template: "{nope}_{sha256}") }
        try Exporter.validate(template: "{sha256}.{ext}")
    }

    @Test func terminalProtocolDetection() {
        #expect(TerminalPreview.detect(environment: ["TERM": "xterm-kitty"]) == .kitty)
        #expect(TerminalPreview.detect(environment: ["KITTY_WINDOW_ID": "3"]) == .kitty)
        #expect(TerminalPreview.detect(environment: ["TERM_PROGRAM": "iTerm.app"]) == .iterm)
        #expect(TerminalPreview.detect(environment: ["TERM": "xterm-256color"]) == .blocks)
    }
}

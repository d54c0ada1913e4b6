import Testing
import MediaFetch

/// One parser for every option that takes a time.
@Suite struct DurationTextTests {
    @Test func durationsAsTyped() {
        #expect(DurationText.parse("15m") == .seconds(900))
        #expect(DurationText.parse("90s") == .seconds(90))
        #expect(DurationText.parse("90") == .seconds(90))
        #expect(DurationText.parse("1h") == .seconds(3600))
        #expect(DurationText.parse("1.5h") == .seconds(5400))
        #expect(DurationText.parse("500ms") == .milliseconds(500))
        #expect(DurationText.parse("30d") == .seconds(30 * 86_400))
        #expect(DurationText.parse("2W") == .seconds(2 * 604_800))
        #expect(DurationText.parse(" 12h ") == .seconds(43_200))
        #expect(DurationText.parse("0") == .zero)
    }

    @Test func refusesWhatIsNotADuration() {
        for text in ["-1m", "soon", "", "m", "1e3s", "+5s", "1 h", "200y", "99999999w"] {
            #expect(DurationText.parse(text) == nil, "\(text)")
        }
    }

    /// A limit is the option's rule: a wait of 8 days is refused, an age of 8 days is not.
    @Test func limitsBelongToTheOption() {
        #expect(DurationText.parse("8d", limit: DurationText.longestWait) == nil)
        #expect(DurationText.parse("7d", limit: DurationText.longestWait) == .seconds(7 * 86_400))
        #expect(DurationText.parse("8d") == .seconds(8 * 86_400))
    }
}

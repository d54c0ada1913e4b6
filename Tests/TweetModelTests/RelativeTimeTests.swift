import Foundation
import Testing
import TweetModel

@Suite struct RelativeTimeTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func age(_ seconds: Double) -> String { RelativeTime.string(from: now.addingTimeInterval(-seconds), now: now) }

    @Test func everyBoundaryOfTheAppsRule() {
        #expect(age(0) == "0m")
        #expect(age(59.999) == "0m")
        #expect(age(60) == "1m")
        #expect(age(53 * 60 + 59) == "53m")
        #expect(age(3599) == "59m")
        #expect(age(3600) == "1h 0m")
        #expect(age(6780) == "1h 53m")
        #expect(age(7199) == "1h 59m")
        #expect(age(7200) == "2h 0m")
        #expect(age(7 * 3600 + 53 * 60) == "7h 53m")
        #expect(age(86_399) == "23h 59m")
        #expect(age(86_400) == "1d")
        #expect(age(4 * 86_400 + 5) == "4d")
        // Days however many: no years.
        #expect(age(365 * 86_400) == "365d")
        #expect(age(730 * 86_400 + 3600) == "730d")
    }

    @Test func futureAndNonsenseDatesCountAsNow() {
        #expect(age(-1) == "0m")
        #expect(age(-86_400 * 400) == "0m")
        #expect(RelativeTime.string(from: .distantPast, now: now).hasSuffix("d"))
        #expect(RelativeTime.string(from: .distantFuture, now: now) == "0m")
    }
}

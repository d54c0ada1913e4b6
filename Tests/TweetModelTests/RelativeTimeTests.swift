import Foundation
import Testing
import TweetModel

@Suite struct RelativeTimeTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func age(_ seconds: Double) -> String { RelativeTime.string(from: now.addingTimeInterval(-seconds), now: now) }

    @Test func everyBoundary() {
        #expect(age(0) == "0s")
        #expect(age(59) == "59s")
        #expect(age(59.999) == "59s")
        #expect(age(60) == "1m")
        #expect(age(3599) == "59m")
        #expect(age(3600) == "1h")
        #expect(age(3660) == "1h 1m")
        #expect(age(6780) == "1h 53m")
        #expect(age(7 * 3600 + 53 * 60) == "7h 53m")
        #expect(age(86_399) == "23h 59m")
        #expect(age(86_400) == "1d")
        #expect(age(4 * 86_400 + 5) == "4d")
        #expect(age(364 * 86_400 + 86_399) == "364d")
        #expect(age(365 * 86_400) == "1y")
        #expect(age(2 * 365 * 86_400 - 1) == "1y")
        #expect(age(2 * 365 * 86_400) == "2y")
    }

    @Test func futureAndNonsenseDatesCountAsNow() {
        #expect(age(-1) == "0s")
        #expect(age(-86_400 * 400) == "0s")
        #expect(RelativeTime.string(from: .distantPast, now: now).hasSuffix("y"))
        #expect(RelativeTime.string(from: .distantFuture, now: now) == "0s")
    }
}

import Foundation
import Testing
@testable import TweetModel

@Suite("Timestamps")
struct DateParsingTests {
    @Test(arguments: [
        ("Wed Oct 10 20:19:24 +0000 2018", 1_539_202_764.0),
        ("Thu Feb 29 23:59:59 +0000 2024", 1_709_251_199.0),
        ("Wed Oct 10 22:19:24 +0200 2018", 1_539_202_764.0),
        ("Wed Oct 10 15:19:24 -0500 2018", 1_539_202_764.0),
        ("2021-09-22T16:38:16.000Z", 1_632_328_696.0),
        ("2021-09-22T16:38:16Z", 1_632_328_696.0),
        ("2021-09-22T16:38:16.250Z", 1_632_328_696.25),
        ("2021-09-22T18:38:16+02:00", 1_632_328_696.0),
        ("2021-09-22T14:38:16-0200", 1_632_328_696.0),
        ("1970-01-01T00:00:00Z", 0.0),
        ("1969-12-31T23:59:59Z", -1.0),
    ])
    func parses(_ text: String, _ seconds: Double) {
        #expect(TwitterDate.parse(text) == Date(timeIntervalSince1970: seconds))
    }

    @Test(arguments: [
        "", "yesterday", "Wed Feb 30 20:19:24 +0000 2018", "Wed Foo 10 20:19:24 +0000 2018", "Wed Oct 10 24:00:00 +0000 2018",
        "Wed Oct 10 20:19:24 0000 2018", "Wed Oct 10 20:19:24 +0000 18", "2021-13-01T00:00:00Z", "2021-09-22T16:38",
        "2021-09-22T16:38:16.Z", "2021-09-22T16:38:16+2", "99999999999-01-01T00:00:00Z",
    ])
    func rejects(_ text: String) {
        #expect(TwitterDate.parse(text) == nil)
    }

    @Test func unparseableDateLeavesTheTweet() throws {
        let json = #"{"data": [{"id": "1", "text": "t", "created_at": "sometime"}]}"#
        let tweet = try #require(Fixtures.parse(json).tweets.first)
        #expect(tweet.createdAt == nil)
    }

    @Test(arguments: [0.0, 1_539_202_764, 1_709_251_199, 951_782_400, 4_102_444_799, -86_401])
    func writtenFormsReadBack(seconds: Double) throws {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(TwitterDate.parse(TwitterDate.v1String(date)) == date)
        #expect(TwitterDate.parse(TwitterDate.isoString(date)) == date)
    }

    @Test func writesTheFormsTheAPIsServe() {
        let date = Date(timeIntervalSince1970: 1_539_202_764)
        #expect(TwitterDate.v1String(date) == "Wed Oct 10 20:19:24 +0000 2018")
        #expect(TwitterDate.isoString(date) == "2018-10-10T20:19:24.000Z")
    }
}

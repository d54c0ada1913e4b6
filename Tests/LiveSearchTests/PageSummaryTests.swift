import Foundation
import Testing
@testable import LiveSearch

@Suite struct PageSummaryTests {
    func read(_ json: String, _ api: SearchAPI) -> PageSummary { PageSummary.read(Array(json.utf8), api: api) }

    @Test func v2CountsDataAndReadsTheNextToken() {
        #expect(read(#"{"data":[{"id":"1","text":"a"},{"id":"2","text":"b"}],"meta":{"result_count":2,"next_token":"abc"}}"#, .v2)
            == .page(tweets: 2, next: .nextToken("abc")))
        #expect(read(#"{"meta":{"result_count":0}}"#, .v2) == .page(tweets: 0, next: nil))
        #expect(read(#"{"data":[{"id":"1"}],"meta":{"next_token":""}}"#, .v2) == .page(tweets: 1, next: nil))
    }

    @Test func v1PagesBelowTheLowestIdExactly() throws {
        let page = #"""
            {"statuses":[{"id":1790000000000000001,"id_str":"1790000000000000001"},{"id_str":"1789999999999999000"},
            {"id":1789999999999999500},{"broken":true},7],
             "search_metadata":{"next_results":"?max_id=1&q=x"}}
            """#
        #expect(read(page, .v1_1) == .page(tweets: 5, next: .maxID(try #require(DecimalID("1789999999999998999")))))
        // No next_results: the end, whatever the ids say.
        #expect(read(#"{"statuses":[{"id_str":"5"}],"search_metadata":{"count":1}}"#, .v1_1) == .page(tweets: 1, next: nil))
        #expect(read(#"{"statuses":[],"search_metadata":{}}"#, .v1_1) == .page(tweets: 0, next: nil))
    }

    @Test func malformedPagesSayWhy() {
        guard case let .malformed(notJSON) = read(#"{"data":[{"id":"1""#, .v2) else { Issue.record("accepted"); return }
        #expect(notJSON.contains("not valid JSON"))
        guard case let .malformed(wrongShape) = read(#"{"data":{"id":"1"}}"#, .v2) else { Issue.record("accepted"); return }
        #expect(wrongShape.contains("data"))
        guard case let .malformed(noStatuses) = read(#"{"data":[]}"#, .v1_1) else { Issue.record("accepted"); return }
        #expect(noStatuses.contains("statuses"))
        guard case .malformed = read("", .v2) else { Issue.record("accepted an empty page"); return }
        guard case .malformed = read(#"{"errors":[{"message":"x"}]}"#, .v2) else { Issue.record("accepted errors only"); return }
    }

    @Test func errorDetailsAreOneShortLine() {
        #expect(APIErrorDetail.read(Array(#"{"title":"Unauthorized","detail":"Unauthorized","status":401}"#.utf8)) == "Unauthorized")
        #expect(APIErrorDetail.read(Array(#"{"errors":[{"code":89,"message":"Invalid or expired token."}]}"#.utf8))
            == "Invalid or expired token. (code 89)")
        let long = APIErrorDetail.read(Array("{\"title\":\"a\\nb\(String(repeating: "x", count: 500))\"}".utf8))
        #expect(long?.contains("\n") == false)
        #expect((long?.count ?? 0) <= 201)
        #expect(APIErrorDetail.read(Array("<html>".utf8)) == nil)
    }

    @Test func rateLimitHeadersAreReadDefensively() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let ok = RateLimitStatus(headers: ["x-rate-limit-remaining": "0", "x-rate-limit-reset": "1700000060"], now: now)
        #expect(ok.exhaustedUntil == Date(timeIntervalSince1970: 1_700_000_060))
        let silly = RateLimitStatus(headers: ["x-rate-limit-remaining": "-3", "x-rate-limit-reset": "99999999999999"], now: now)
        #expect(silly.remaining == nil)
        #expect(silly.reset == now.addingTimeInterval(86_400))
        let garbage = RateLimitStatus(headers: ["x-rate-limit-reset": "soon", "retry-after": "30"], now: now)
        #expect(garbage.reset == now.addingTimeInterval(30))
    }
}

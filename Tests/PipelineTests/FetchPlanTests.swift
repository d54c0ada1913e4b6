import Foundation
import Testing
import TweetModel
@testable import Pipeline

@Suite struct FetchPlanTests {
    @Test func dedupesAndOrdersURLs() throws {
        let parsed = ResultsParser.parse(Data(v1Page.utf8), source: "v1")
        let plan = FetchPlan(tweets: parsed.tweets, includeVideos: false)
        #expect(plan.items.map(\.url) == [
            "https://pbs.twimg.com/profile_images/11/alice_400x400.jpg",
            "https://pbs.twimg.com/media/Photo0001?format=jpg&name=orig",
            "https://pbs.twimg.com/media/Photo0002?format=jpg&name=orig",
            "https://pbs.twimg.com/profile_images/22/bob_400x400.jpg",
            "https://pbs.twimg.com/media/Gone0003?format=jpg&name=orig",
        ])
        #expect(plan.items[0].fallbacks == ["https://pbs.twimg.com/profile_images/11/alice_normal.jpg"])
        #expect(plan.items[0].role == .avatar)
        #expect(plan.items[1].role == .photo)
    }
}

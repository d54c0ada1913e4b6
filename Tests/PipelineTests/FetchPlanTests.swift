import Foundation
import Catalog
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

    @Test func otherNetworksFallBackToTheirOwnURLsAndSkipPlaylists() throws {
        let mastodon = Tweet(id: "1", createdAt: nil, text: "", author: Author(id: "9", screenName: "ana", name: "Ana",
            profileImageURL: "https://files.example.social/a.png"),
            media: [MediaItem(id: "5", type: .photo, imageURL: "https://files.example.social/m.jpg",
                              sourceURL: "https://origin.example/m.jpg")],
            network: .mastodon)
        let bluesky = Tweet(id: "at://x", createdAt: nil, text: "", author: Author(id: "did", screenName: "b", name: "",
            profileImageURL: nil),
            media: [MediaItem(id: "v", type: .video, imageURL: "https://video.example/thumb.jpg",
                              videoURL: "https://video.example/playlist.m3u8?x=1")],
            network: .bluesky)
        let plan = FetchPlan(tweets: [mastodon, bluesky], includeVideos: true)
        // The avatar as given (no X rewrite), the photo with the origin's copy to fall back on,
        // the video's poster; the HLS playlist is not planned.
        #expect(plan.items.map(\.url) == [
            "https://files.example.social/a.png", "https://files.example.social/m.jpg", "https://video.example/thumb.jpg",
        ])
        #expect(plan.items[0].fallbacks.isEmpty)
        #expect(plan.items[1].fallbacks == ["https://origin.example/m.jpg"])
        let entry = ManifestBuilder(outcomes: [:]).entry(bluesky, query: nil, format: .blueskyPosts, source: "b")
        let video = try #require(entry.media.first?.video)
        #expect(video.error?.code == "playlist_not_fetched" && video.sha256 == nil)
        #expect(entry.network == "bluesky")
    }
}

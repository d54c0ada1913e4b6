import Foundation
import Catalog
import Inspect
@testable import Pipeline
import Testing

/// `tweetcache info`/`tweets --json` name each post's network and link it where it
/// lives: X's from the handle and id, Mastodon's and Bluesky's as their APIs gave it.
@Suite struct TweetDetailsLinkTests {
    static func post(network: String?, url: String?) -> ManifestTweet {
        ManifestTweet(
            id: "113", createdAt: nil, text: "t", lang: nil,
            author: .init(id: "7", screenName: "ana", name: "Ana", avatar: nil),
            entities: .init(hashtags: [], cashtags: [], mentions: [], urls: [], media: []),
            media: [], referencedTweets: [], query: nil, sourceFormat: "mastodonStatuses", source: "m.json",
            network: network, url: url)
    }

    @Test func eachNetworkLinksItsPosts() {
        let now = Date(timeIntervalSince1970: 0)
        let mastodon = TweetDetails(tweet: Self.post(network: "mastodon", url: "https://example.social/@ana/113"), now: now)
        #expect(mastodon.network == "mastodon" && mastodon.link == "https://example.social/@ana/113")
        // A local account's profile is on the post's server; a remote one on its own.
        #expect(mastodon.profile == "https://example.social/@ana")
        #expect(mastodon.text(style: Style(enabled: false)).contains("https://example.social/@ana/113"))
        #expect(mastodon.text(style: Style(enabled: false)).contains("mastodon"))
        // Manifests from before other networks have no network: they are X's.
        let old = TweetDetails(tweet: Self.post(network: nil, url: nil), now: now)
        #expect(old.network == "x" && old.link == "https://x.com/ana/status/113" && old.profile == "https://x.com/ana")
    }
}

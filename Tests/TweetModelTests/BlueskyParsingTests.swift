import Foundation
import Testing
@testable import TweetModel

/// Bluesky post views and feeds as the AppView serves them (shapes from the
/// `app.bsky` lexicons, contents written for these tests).
@Suite("Bluesky posts")
struct BlueskyParsingTests {
    static let author = #"{"did": "did:plc:abc123", "handle": "ana.bsky.social", "displayName": "Ana", "avatar": "https://cdn.bsky.app/img/avatar/plain/did:plc:abc123/bafyav@jpeg"}"#

    static func post(rkey: String, text: String, facets: String = "[]", embed: String = "", author: String = author) -> String {
        #"{"uri": "at://did:plc:abc123/app.bsky.feed.post/\#(rkey)", "cid": "bafy\#(rkey)", "author": \#(author), "record": {"$type": "app.bsky.feed.post", "text": \#(text), "facets": \#(facets), "createdAt": "2026-11-21T08:00:00.000Z", "langs": ["en"]}, "indexedAt": "2026-11-21T08:00:01.000Z"\#(embed)}"#
    }

    @Test func facetsAreUTF8ByteRangesAndBecomeCodePointEntities() throws {
        // "é" is 2 bytes, "🌌" 4: the tag starts at byte 14, code point 10.
        let text = "\"café 🌌 at #night with @bo.example and example.org\""
        let facets = #"""
        [{"index": {"byteStart": 14, "byteEnd": 20}, "features": [{"$type": "app.bsky.richtext.facet#tag", "tag": "night"}]},
         {"index": {"byteStart": 26, "byteEnd": 37}, "features": [{"$type": "app.bsky.richtext.facet#mention", "did": "did:plc:bo"}]},
         {"index": {"byteStart": 42, "byteEnd": 53}, "features": [{"$type": "app.bsky.richtext.facet#link", "uri": "https://example.org/"}]},
         {"index": {"byteStart": 6, "byteEnd": 8}, "features": [{"$type": "app.bsky.richtext.facet#tag", "tag": "cut"}]},
         {"index": {"byteStart": 50, "byteEnd": 99}, "features": [{"$type": "app.bsky.richtext.facet#tag", "tag": "past"}]}]
        """#
        let json = #"{"posts": [\#(Self.post(rkey: "3k1", text: text, facets: facets))], "cursor": "c2"}"#
        let results = Fixtures.parse(json)
        #expect(results.allProblems.isEmpty)
        let page = try #require(results.pages.first)
        #expect(page.format == .blueskyPosts && page.nextToken == "c2")
        let post = try #require(page.tweets.first)
        #expect(post.network == .bluesky)
        #expect(post.id == "at://did:plc:abc123/app.bsky.feed.post/3k1")
        #expect(post.url == "https://bsky.app/profile/ana.bsky.social/post/3k1")
        #expect(post.author.id == "did:plc:abc123" && post.author.screenName == "ana.bsky.social")
        // The facet cutting "🌌" and the one past the end are ignored, not a crash.
        #expect(post.entities.hashtags.map(\.tag) == ["night"])
        #expect(post.text.substring(codePoints: post.entities.hashtags[0].range) == "#night")
        #expect(post.entities.mentions.first?.username == "bo.example" && post.entities.mentions.first?.id == "did:plc:bo")
        #expect(post.text.substring(codePoints: try #require(post.entities.mentions.first).range) == "@bo.example")
        #expect(post.entities.urls.first?.url == "https://example.org/")
    }

    @Test func imagesQuotesAndLinkCardsBecomeMediaAndReferences() throws {
        let images = #", "embed": {"$type": "app.bsky.embed.recordWithMedia#view", "media": {"$type": "app.bsky.embed.images#view", "images": [{"thumb": "https://cdn.bsky.app/img/feed_thumbnail/plain/did:plc:abc123/bafyimg@jpeg", "fullsize": "https://cdn.bsky.app/img/feed_fullsize/plain/did:plc:abc123/bafyimg@jpeg", "alt": "moon", "aspectRatio": {"width": 2000, "height": 1000}}]}, "record": {"$type": "app.bsky.embed.record#view", "record": {"$type": "app.bsky.embed.record#viewRecord", "uri": "at://did:plc:q/app.bsky.feed.post/q1", "author": {"did": "did:plc:q", "handle": "q.example"}, "value": {"text": "quoted", "createdAt": "2026-11-01T00:00:00Z"}, "embeds": [{"$type": "app.bsky.embed.external#view", "external": {"uri": "https://news.example/a", "title": "News", "thumb": "https://cdn.bsky.app/img/feed_thumbnail/plain/did:plc:q/bafycard@jpeg"}}]}}}"#
        let video = #", "embed": {"$type": "app.bsky.embed.video#view", "cid": "bafyvid", "playlist": "https://video.bsky.app/watch/x/playlist.m3u8", "thumbnail": "https://video.bsky.app/watch/x/thumbnail.jpg"}"#
        let json = #"{"posts": [\#(Self.post(rkey: "p1", text: "\"look\"", embed: images)), \#(Self.post(rkey: "p2", text: "\"clip\"", embed: video))]}"#
        let results = Fixtures.parse(json)
        #expect(results.allProblems.isEmpty)
        let first = try #require(results.tweets.first)
        let photo = try #require(first.media.first)
        #expect(photo.imageURL?.contains("feed_fullsize") == true && photo.sourceURL?.contains("feed_thumbnail") == true)
        #expect(photo.altText == "moon" && photo.width == 2000 && photo.height == 1000)
        #expect(first.references == [TweetReference(kind: .quoted, id: "at://did:plc:q/app.bsky.feed.post/q1")])
        let quoted = try #require(results.pages.first?.includedTweets.first)
        #expect(quoted.text == "quoted" && quoted.author.screenName == "q.example")
        #expect(quoted.media.first?.imageURL?.contains("bafycard") == true)
        // A video's thumbnail is its poster; its HLS playlist is listed, not a file to keep.
        let clip = try #require(results.tweets.last?.media.first)
        #expect(clip.type == .video && clip.imageURL == "https://video.bsky.app/watch/x/thumbnail.jpg")
        #expect(clip.videoURL == "https://video.bsky.app/watch/x/playlist.m3u8" && clip.videoIsPlaylist)
    }

    @Test func aRepostInAFeedIsAPostByTheReposter() throws {
        let reason = #"{"$type": "app.bsky.feed.defs#reasonRepost", "by": {"did": "did:plc:bo", "handle": "bo.example"}, "indexedAt": "2026-11-22T00:00:00Z"}"#
        let json = #"{"feed": [{"post": \#(Self.post(rkey: "r1", text: "\"orig\""))}, {"post": \#(Self.post(rkey: "r2", text: "\"shared\"")), "reason": \#(reason)}, {"post": {"cid": "x"}}], "cursor": "n"}"#
        let results = Fixtures.parse(json)
        #expect(results.pages.map(\.format) == [.blueskyFeed])
        #expect(results.tweets.count == 2)
        let repost = try #require(results.tweets.last)
        #expect(repost.author.screenName == "bo.example")
        #expect(repost.references == [TweetReference(kind: .retweeted, id: "at://did:plc:abc123/app.bsky.feed.post/r2")])
        #expect(results.pages.first?.includedTweets.map(\.text) == ["shared"])
        #expect(results.allProblems.map(\.location) == ["feed[2].post"])
    }

    /// A feed saved a line at a time: each line a `feedViewPost` on its own, a repost
    /// when its `reason` says so, a broken item a problem of its line.
    @Test func feedItemsOnTheirOwnLinesAreRead() throws {
        let reason = #"{"$type": "app.bsky.feed.defs#reasonRepost", "by": {"did": "did:plc:bo", "handle": "bo.example"}, "indexedAt": "2026-11-22T00:00:00Z"}"#
        let lines = [
            #"{"post": \#(Self.post(rkey: "r1", text: "\"orig\""))}"#,
            #"{"post": \#(Self.post(rkey: "r2", text: "\"shared\"")), "reason": \#(reason)}"#,
            #"{"post": {"cid": "x"}, "feedContext": "t"}"#,
        ].joined(separator: "\n")
        let results = Fixtures.parse(lines)
        #expect(results.pages.map(\.format) == [.blueskyFeedItem, .blueskyFeedItem])
        #expect(results.tweets.map(\.text) == ["orig", ""])
        #expect(results.tweets.last?.author.screenName == "bo.example")
        #expect(results.tweets.last?.references == [TweetReference(kind: .retweeted, id: "at://did:plc:abc123/app.bsky.feed.post/r2")])
        #expect(results.pages.last?.includedTweets.map(\.text) == ["shared"])
        #expect(results.allProblems.count == 1)
        // One item alone is a document too.
        #expect(Fixtures.parse(#"{"post": \#(Self.post(rkey: "s", text: "\"one\""))}"#).tweets.map(\.text) == ["one"])
    }

    @Test func aSinglePostAndJSONLinesOfPagesAreRecognised() throws {
        #expect(Fixtures.parse(Self.post(rkey: "s", text: "\"one\"")).pages.map(\.format) == [.blueskyPost])
        let lines = #"{"posts": [\#(Self.post(rkey: "a", text: "\"a\""))]}"# + "\n" + "[" + MastodonParsingTests.status(id: "9", content: #""<p>m</p>""#) + "]"
        let results = Fixtures.parse(lines)
        #expect(results.pages.map(\.format) == [.blueskyPosts, .mastodonStatuses])
        #expect(results.tweets.map(\.network) == [.bluesky, .mastodon])
    }

    @Test(arguments: [(0, 1, true), (1, 3, true), (3, 7, true), (1, 5, false), (5, 5, false), (-1, 2, false), (0, 9, false)])
    func byteRangesMustFallOnCharacters(_ start: Int, _ end: Int, _ valid: Bool) {
        // "aé🌌": a = byte 0, é = 1-2, 🌌 = 3-6.
        let utf8 = Array("aé🌌".utf8)
        #expect((BlueskyConverter.codePointRange(utf8, start: start, end: end) != nil) == valid)
    }
}

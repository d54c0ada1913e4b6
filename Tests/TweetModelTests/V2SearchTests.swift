import Foundation
import Testing
@testable import TweetModel

@Suite("v2 search pages")
struct V2SearchTests {
    static let page = #"""
    {"data": [
        \#(Fixtures.v2Tweet(id: "1", text: "two pics #ucd @carol https://t.co/aa", extra: #"""
            , "attachments": {"media_keys": ["3_11", "3_12"]},
              "entities": {"hashtags": [{"start": 9, "end": 13, "tag": "ucd"}],
                           "mentions": [{"start": 14, "end": 20, "username": "carol", "id": "300"}],
                           "urls": [{"start": 21, "end": 36, "url": "https://t.co/aa", "expanded_url": "https://twitter.com/bob/status/1/photo/1", "display_url": "pic.twitter.com/aa"}],
                           "annotations": [{"start": 0, "end": 2, "probability": 0.5, "type": "Other", "normalized_text": "two"}]}
            """#)),
        \#(Fixtures.v2Tweet(id: "2", text: "RT @carol: the original", authorID: "101", extra: #"""
            , "referenced_tweets": [{"type": "retweeted", "id": "90"}], "attachments": {"media_keys": ["7_13"]}
            """#)),
        \#(Fixtures.v2Tweet(id: "3", text: "quoting", extra: #"""
            , "referenced_tweets": [{"type": "quoted", "id": "80"}, {"type": "replied_to", "id": "70"}, {"type": "something_new", "id": "60"}]
            """#))
    ],
    "includes": {
        "media": [
            {"media_key": "3_11", "type": "photo", "url": "https://pbs.twimg.com/media/FzX1aB2cD3eF4gH.jpg", "width": 4096, "height": 3072, "alt_text": "The quad at dusk"},
            {"media_key": "3_12", "type": "photo", "url": "https://pbs.twimg.com/media/AbCdEfGhIjKlMnO.png", "width": 1200, "height": 675},
            {"media_key": "7_13", "type": "video", "preview_image_url": "https://pbs.twimg.com/ext_tw_video_thumb/13/pu/img/poster.jpg", "width": 1280, "height": 720,
             "variants": [{"content_type": "application/x-mpegURL", "url": "https://video.twimg.com/ext_tw_video/13/pu/pl/a.m3u8"},
                          {"bit_rate": 950000, "content_type": "video/mp4", "url": "https://video.twimg.com/ext_tw_video/13/pu/vid/640x360/b.mp4?tag=12"},
                          {"bit_rate": 2176000, "content_type": "video/mp4", "url": "https://video.twimg.com/ext_tw_video/13/pu/vid/1280x720/c.mp4?tag=12"}]},
            {"media_key": "16_14", "type": "animated_gif", "preview_image_url": "https://pbs.twimg.com/tweet_video_thumb/GifName.jpg",
             "variants": [{"bit_rate": 0, "content_type": "video/mp4", "url": "https://video.twimg.com/tweet_video/GifName.mp4"}]}
        ],
        "users": [\#(Fixtures.v2User()), \#(Fixtures.v2User(id: "101", username: "erin")), \#(Fixtures.v2User(id: "300", username: "carol"))],
        "tweets": [
            \#(Fixtures.v2Tweet(id: "90", text: "the original", authorID: "300", extra: #", "attachments": {"media_keys": ["7_13"]}"#)),
            \#(Fixtures.v2Tweet(id: "80", text: "a gif", authorID: "300", extra: #", "attachments": {"media_keys": ["16_14", "3_999"]}"#)),
            \#(Fixtures.v2Tweet(id: "90", text: "the original", authorID: "300"))
        ]
    },
    "errors": [{"value": "gone_user", "detail": "User has been suspended: [gone_user].", "title": "Forbidden", "resource_type": "user", "parameter": "entities.mentions.username", "resource_id": "gone_user", "type": "https://api.twitter.com/2/problems/resource-not-found"}],
    "meta": {"newest_id": "3", "oldest_id": "1", "result_count": 3, "next_token": "b26v89c19zqg8o3"},
    "__twarc": {"url": "https://api.twitter.com/2/tweets/search/recent?expansions=author_id&query=%23ucd+has%3Amedia&max_results=100", "version": "2.5.0", "retrieved_at": "2021-09-22T16:39:00+00:00"}}
    """#

    @Test func readsPageMetadata() throws {
        let results = Fixtures.parse(Self.page)
        let page = try #require(results.pages.first)
        #expect(page.format == .v2Search)
        #expect(page.tweets.map(\.id) == ["1", "2", "3"])
        #expect(page.nextToken == "b26v89c19zqg8o3")
        #expect(page.query == "#ucd has:media")
        #expect(page.tweets[0].createdAt == Date(timeIntervalSince1970: 1_632_328_696))
        #expect(page.tweets[0].author == Author(id: "100", screenName: "bob", name: "User bob",
                                                profileImageURL: "https://pbs.twimg.com/profile_images/2222/bob_normal.png"))
        #expect(page.tweets[0].author.avatarURL == "https://pbs.twimg.com/profile_images/2222/bob_400x400.png")
        #expect(page.tweets[1].author.screenName == "erin")
    }

    @Test func resolvesMediaThroughIncludes() throws {
        let page = try #require(Fixtures.parse(Self.page).pages.first)
        let photos = page.tweets[0].media
        #expect(photos.map(\.id) == ["3_11", "3_12"])
        #expect(photos.map(\.type) == [.photo, .photo])
        #expect(photos[0].imageURL == "https://pbs.twimg.com/media/FzX1aB2cD3eF4gH?format=jpg&name=orig")
        #expect(photos[1].imageURL == "https://pbs.twimg.com/media/AbCdEfGhIjKlMnO?format=png&name=orig")
        #expect(photos[0].sourceURL == "https://pbs.twimg.com/media/FzX1aB2cD3eF4gH.jpg")
        #expect(photos[0].width == 4096 && photos[0].height == 3072)
        #expect(photos[0].altText == "The quad at dusk")
        #expect(photos[1].altText == nil)
        let video = try #require(page.tweets[1].media.first)
        #expect(video.type == .video)
        #expect(video.imageURL == "https://pbs.twimg.com/ext_tw_video_thumb/13/pu/img/poster.jpg")
        #expect(video.videoURL == "https://video.twimg.com/ext_tw_video/13/pu/vid/1280x720/c.mp4?tag=12")
    }

    @Test func entitiesUseStartEndOffsets() throws {
        let tweet = try #require(Fixtures.parse(Self.page).tweets.first)
        #expect(tweet.text.substring(codePoints: tweet.entities.hashtags[0].range) == "#ucd")
        #expect(tweet.entities.mentions == [Mention(range: TextRange(start: 14, end: 20)!, username: "carol", id: "300")])
        #expect(tweet.text.substring(codePoints: tweet.entities.mentions[0].range) == "@carol")
        #expect(tweet.text.substring(codePoints: tweet.entities.urls[0].range) == "https://t.co/aa")
        #expect(tweet.entities.urls[0].displayURL == "pic.twitter.com/aa")
        #expect(tweet.entities.media.isEmpty)
    }

    @Test func referencesAndIncludedTweets() throws {
        let page = try #require(Fixtures.parse(Self.page).pages.first)
        #expect(page.tweets[1].references == [TweetReference(kind: .retweeted, id: "90")])
        // Unknown reference kinds are ignored rather than failing the tweet.
        #expect(page.tweets[2].references == [TweetReference(kind: .quoted, id: "80"), TweetReference(kind: .repliedTo, id: "70")])
        #expect(page.includedTweets.map(\.id) == ["90", "80"])
        let quoted = try #require(page.includedTweets.first { $0.id == page.tweets[2].referencedID(.quoted) })
        #expect(quoted.author.screenName == "carol")
        // The API does not expand media of included tweets; what is there is used, the rest skipped quietly.
        #expect(quoted.media.map(\.type) == [.animatedGIF])
        #expect(quoted.media.first?.videoURL == "https://video.twimg.com/tweet_video/GifName.mp4")
        #expect(quoted.media.first?.imageURL == "https://pbs.twimg.com/tweet_video_thumb/GifName.jpg")
        let retweeted = try #require(page.includedTweets.first { $0.id == "90" })
        #expect(retweeted.media.map(\.id) == ["7_13"])
    }

    @Test func apiErrorsBecomeProblems() throws {
        let results = Fixtures.parse(Self.page, source: "kpop.json")
        let problems = results.allProblems
        #expect(problems.count == 1)
        #expect(problems.first == ParseProblem(
            source: "kpop.json", location: "errors[0]",
            message: "the API reported: Forbidden: User has been suspended: [gone_user]."
        ))
    }

    @Test func missingMediaOfAResultIsReported() throws {
        let json = #"{"data": [\#(Fixtures.v2Tweet(id: "1", text: "x", extra: #", "attachments": {"media_keys": ["3_404"]}"#))], "meta": {"result_count": 1}}"#
        let results = Fixtures.parse(json)
        #expect(results.tweets.first?.media.isEmpty == true)
        #expect(results.allProblems.map(\.location) == ["data[0]"])
        #expect(results.allProblems.first?.message.contains("3_404") == true)
    }

    @Test func noteTweetSuppliesTheFullText() throws {
        let full = "A long post " + String(repeating: "word ", count: 60) + "#end"
        let endStart = full.unicodeScalars.count - 4
        let json = #"{"data": [\#(Fixtures.v2Tweet(id: "1", text: "A long post word word…", extra: #"""
            , "note_tweet": {"text": \#(Fixtures.quoted(full)), "entities": {"hashtags": [{"start": \#(endStart), "end": \#(endStart + 4), "tag": "end"}]}}
            """#))]}"#
        let tweet = try #require(Fixtures.parse(json).tweets.first)
        #expect(tweet.text == full)
        #expect(tweet.text.substring(codePoints: try #require(tweet.entities.hashtags.first).range) == "#end")
    }

    @Test func v2TextIsUnescapedToo() throws {
        let json = #"{"data": [\#(Fixtures.v2Tweet(id: "1", text: "A &amp; B #tag", extra: #", "entities": {"hashtags": [{"start": 10, "end": 14, "tag": "tag"}]}"#))]}"#
        let tweet = try #require(Fixtures.parse(json).tweets.first)
        #expect(tweet.text == "A & B #tag")
        #expect(tweet.text.substring(codePoints: tweet.entities.hashtags[0].range) == "#tag")
    }

    @Test func emptySearchHasNoData() throws {
        let results = Fixtures.parse(#"{"meta": {"result_count": 0}}"#)
        #expect(results.pages.count == 1)
        #expect(results.pages.first?.format == .v2Search)
        #expect(results.tweets.isEmpty)
        #expect(results.allProblems.isEmpty)
    }

    @Test func unknownAuthorLeavesAnEmptyHandle() throws {
        let json = #"{"data": [{"id": "5", "text": "no expansions"}]}"#
        let tweet = try #require(Fixtures.parse(json).tweets.first)
        #expect(tweet.author.id == "")
        #expect(tweet.author.screenName == "")
        #expect(tweet.author.avatarURL == nil)
        #expect(tweet.createdAt == nil)
    }
}

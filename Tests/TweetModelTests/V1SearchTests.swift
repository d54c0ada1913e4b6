import Foundation
import Testing
@testable import TweetModel

@Suite("v1.1 search pages")
struct V1SearchTests {
    @Test func readsPageMetadataAndTweetsInOrder() throws {
        let json = Fixtures.v1SearchPage([
            Fixtures.v1Tweet(id: "1", text: "first #ucd"),
            Fixtures.v1Tweet(id: "2", text: "second"),
        ], query: "advanced_recycling+-filter%3Aretweets")
        let results = Fixtures.parse(json)
        let page = try #require(results.pages.first)
        #expect(results.pages.count == 1)
        #expect(page.format == .v1Search)
        #expect(page.tweets.map(\.id) == ["1", "2"])
        #expect(page.query == "advanced_recycling -filter:retweets")
        #expect(page.nextToken == "?max_id=9&q=%23ucd")
        #expect(results.allProblems.isEmpty)
        let first = page.tweets[0]
        #expect(first.text == "first #ucd")
        #expect(first.lang == "en")
        #expect(first.author == Author(id: "12", screenName: "alice"))
        #expect(first.createdAt == Date(timeIntervalSince1970: 1_539_202_764))
    }

    @Test func compatibilityModeUsesExtendedTweet() throws {
        let text = "A long tweet that goes on #and on"
        let tweet = #"""
        {"created_at": "Wed Oct 10 20:19:24 +0000 2018", "id_str": "5", "text": "A long tweet that… https://t.co/more", "truncated": true,
         "entities": {"hashtags": [], "urls": [{"url": "https://t.co/more", "indices": [19, 36]}]},
         "extended_tweet": {"full_text": "\#(text)", "display_text_range": [0, 33],
            "entities": {"hashtags": [{"text": "and", "indices": [26, 30]}], "urls": []},
            "extended_entities": {"media": [\#(Fixtures.v1Photo(id: "55", name: "FzX1aB2cD3eF4gH", indices: "[34, 57]"))]}},
         "user": \#(Fixtures.v1User())}
        """#
        let page = try #require(Fixtures.parse(Fixtures.v1SearchPage([tweet])).pages.first)
        let parsed = try #require(page.tweets.first)
        #expect(parsed.text == text)
        #expect(parsed.entities.urls.isEmpty)
        #expect(parsed.entities.hashtags == [Hashtag(range: TextRange(start: 26, end: 30)!, tag: "and")])
        #expect(parsed.media.map(\.id) == ["55"])
    }

    @Test func photoMediaPointsAtTheOriginal() throws {
        let media = #"{"media": [\#(Fixtures.v1Photo(id: "7", name: "FzX1aB2cD3eF4gH")), \#(Fixtures.v1Photo(id: "8", name: "AbCdEfGhIjKlMnO"))]}"#
        let tweet = Fixtures.v1Tweet(
            id: "1", text: "two photos of the quad here: https://t.co/pic",
            entities: #"{"hashtags": [], "media": [\#(Fixtures.v1Photo(id: "7", name: "FzX1aB2cD3eF4gH", indices: "[29, 45]"))]}"#,
            extra: #", "extended_entities": \#(media)"#
        )
        let parsed = try #require(Fixtures.parse(Fixtures.v1SearchPage([tweet])).tweets.first)
        #expect(parsed.media.count == 2)
        let photo = parsed.media[0]
        #expect(photo.type == .photo)
        #expect(photo.sourceURL == "https://pbs.twimg.com/media/FzX1aB2cD3eF4gH.jpg")
        #expect(photo.imageURL == "https://pbs.twimg.com/media/FzX1aB2cD3eF4gH?format=jpg&name=orig")
        #expect(photo.videoURL == nil)
        #expect(photo.width == 2048 && photo.height == 1536)
        // One t.co link for the whole set, however many photos share it.
        #expect(parsed.entities.media == [MediaRange(range: TextRange(start: 29, end: 45)!, mediaID: "7")])
        #expect(parsed.text.substring(codePoints: parsed.entities.media[0].range) == "https://t.co/pic")
    }

    @Test func videoTakesTheHighestBitrateMP4AndThePoster() throws {
        let video = #"""
        {"id_str": "70", "indices": [6, 22], "type": "video",
         "media_url_https": "https://pbs.twimg.com/ext_tw_video_thumb/70/pu/img/poster.jpg",
         "original_info": {"width": 1280, "height": 720},
         "video_info": {"aspect_ratio": [16, 9], "duration_millis": 1000, "variants": [
            {"content_type": "application/x-mpegURL", "url": "https://video.twimg.com/ext_tw_video/70/pu/pl/list.m3u8?tag=12"},
            {"bitrate": 832000, "content_type": "video/mp4", "url": "https://video.twimg.com/ext_tw_video/70/pu/vid/640x360/mid.mp4?tag=12"},
            {"bitrate": 2176000, "content_type": "video/mp4", "url": "https://video.twimg.com/ext_tw_video/70/pu/vid/1280x720/high.mp4?tag=12"},
            {"bitrate": 256000, "content_type": "video/mp4", "url": "https://video.twimg.com/ext_tw_video/70/pu/vid/480x270/low.mp4?tag=12"}]}}
        """#
        let gif = #"""
        {"id_str": "71", "type": "animated_gif", "media_url_https": "https://pbs.twimg.com/tweet_video_thumb/GifName.jpg",
         "video_info": {"variants": [{"bitrate": 0, "content_type": "video/mp4", "url": "https://video.twimg.com/tweet_video/GifName.mp4"}]}}
        """#
        let tweets = [
            Fixtures.v1Tweet(id: "1", text: "watch https://t.co/vid", extra: #", "extended_entities": {"media": [\#(video)]}"#),
            Fixtures.v1Tweet(id: "2", text: "loop", extra: #", "extended_entities": {"media": [\#(gif)]}"#),
        ]
        let parsed = Fixtures.parse(Fixtures.v1SearchPage(tweets)).tweets
        let movie = try #require(parsed.first?.media.first)
        #expect(movie.type == .video)
        #expect(movie.videoURL == "https://video.twimg.com/ext_tw_video/70/pu/vid/1280x720/high.mp4?tag=12")
        #expect(movie.imageURL == "https://pbs.twimg.com/ext_tw_video_thumb/70/pu/img/poster.jpg")
        #expect(movie.width == 1280 && movie.height == 720)
        let loop = try #require(parsed.last?.media.first)
        #expect(loop.type == .animatedGIF)
        #expect(loop.videoURL == "https://video.twimg.com/tweet_video/GifName.mp4")
        #expect(loop.imageURL == "https://pbs.twimg.com/tweet_video_thumb/GifName.jpg")
    }

    @Test func retweetAndQuoteOriginalsAreIncludedWithTheirOwnMedia() throws {
        let originalMedia = #", "extended_entities": {"media": [\#(Fixtures.v1Photo(id: "900", name: "OrigPhoto123456", indices: "[9, 32]"))]}"#
        let original = Fixtures.v1Tweet(id: "90", text: "original https://t.co/pic", user: Fixtures.v1User(id: "30", screenName: "carol"), extra: originalMedia)
        let quotedMedia = #", "extended_entities": {"media": [\#(Fixtures.v1Photo(id: "800", name: "QuotedPhoto1234", indices: "[7, 30]"))]}"#
        let quoted = Fixtures.v1Tweet(id: "80", text: "quoted https://t.co/pic", user: Fixtures.v1User(id: "31", screenName: "dave"), extra: quotedMedia)
        // As served: the retweet repeats the original's media; the quote does not.
        let retweet = Fixtures.v1Tweet(id: "1", text: "RT @carol: original https://t.co/pic", extra: originalMedia + #", "retweeted_status": \#(original)"#)
        let quote = Fixtures.v1Tweet(id: "2", text: "look at this", extra: #", "quoted_status_id_str": "80", "quoted_status": \#(quoted)"#)
        let reply = Fixtures.v1Tweet(id: "3", text: "@carol yes", extra: #", "in_reply_to_status_id_str": "90""#)
        let retweetAgain = Fixtures.v1Tweet(id: "4", text: "RT @carol: original", extra: #", "retweeted_status": \#(original)"#)

        let page = try #require(Fixtures.parse(Fixtures.v1SearchPage([retweet, quote, reply, retweetAgain])).pages.first)
        #expect(page.tweets.map(\.id) == ["1", "2", "3", "4"])
        #expect(page.includedTweets.map(\.id) == ["90", "80"])   // each once
        #expect(page.tweets[0].references == [TweetReference(kind: .retweeted, id: "90")])
        #expect(page.tweets[1].references == [TweetReference(kind: .quoted, id: "80")])
        #expect(page.tweets[2].references == [TweetReference(kind: .repliedTo, id: "90")])
        #expect(page.tweets[1].media.isEmpty)
        let inner = try #require(page.includedTweets.first { $0.id == page.tweets[1].referencedID(.quoted) })
        #expect(inner.media.map(\.id) == ["800"])
        #expect(inner.author.screenName == "dave")
        #expect(page.includedTweets[0].media.map(\.id) == ["900"])
    }

    @Test func htmlEscapesAreDecodedAndRangesFollow() throws {
        // Offsets as the API serves them: counted in the escaped text.
        let escaped = "Fish &amp; chips &lt;3 #food @bob https://t.co/x &gt; end #last"
        let entities = #"""
        {"hashtags": [{"text": "food", "indices": [23, 28]}, {"text": "last", "indices": [58, 63]}, {"text": "bad", "indices": [6, 12]}],
         "user_mentions": [{"screen_name": "bob", "id_str": "77", "indices": [29, 33]}],
         "urls": [{"url": "https://t.co/x", "expanded_url": "https://example.com/fish", "display_url": "example.com/fish", "indices": [34, 48]}]}
        """#
        let tweet = try #require(Fixtures.parse(Fixtures.v1Tweet(id: "1", text: escaped, entities: entities)).tweets.first)
        #expect(tweet.text == "Fish & chips <3 #food @bob https://t.co/x > end #last")
        // The range starting inside "&amp;" cannot be placed and is dropped.
        #expect(tweet.entities.hashtags.map(\.tag) == ["food", "last"])
        #expect(tweet.entities.hashtags.map(\.range) == [TextRange(start: 16, end: 21)!, TextRange(start: 48, end: 53)!])
        for hashtag in tweet.entities.hashtags {
            #expect(tweet.text.substring(codePoints: hashtag.range).map(String.init) == "#" + hashtag.tag)
        }
        let mention = try #require(tweet.entities.mentions.first)
        #expect(tweet.text.substring(codePoints: mention.range) == "@bob")
        #expect(mention.id == "77")
        let link = try #require(tweet.entities.urls.first)
        #expect(tweet.text.substring(codePoints: link.range) == "https://t.co/x")
        #expect(link.expandedURL == "https://example.com/fish")
        #expect(link.displayURL == "example.com/fish")
    }

    @Test func doubleEscapedTextDecodesOnce() throws {
        // A user who typed "&amp;" literally is served "&amp;amp;".
        let tweet = try #require(Fixtures.parse(Fixtures.v1Tweet(id: "1", text: "say &amp;amp; &amp;lt;")).tweets.first)
        #expect(tweet.text == "say &amp; &lt;")
    }

    @Test func numericIDsWithoutStringsKeepAllDigits() throws {
        let json = #"{"id": 1590087310565339136, "full_text": "hi", "user": {"id": 3397224951, "screen_name": "x", "name": "X"}}"#
        let tweet = try #require(Fixtures.parse(json).tweets.first)
        #expect(tweet.id == "1590087310565339136")
        #expect(tweet.author.id == "3397224951")
        #expect(tweet.author.profileImageURL == nil)
        #expect(tweet.author.avatarURL == nil)
    }
}

private extension Author {
    init(id: String, screenName: String) {
        self.init(id: id, screenName: screenName, name: "User \(screenName)",
                  profileImageURL: "https://pbs.twimg.com/profile_images/1111/\(screenName)_normal.jpg")
    }
}

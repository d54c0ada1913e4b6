import Demo
import Foundation
import Testing
import TweetModel

/// The demo's sample must be what the real APIs serve, and what TweetModel reads back
/// without a single problem.
@Suite("Demo sample results")
struct SampleResultsTests {
    static let sample = SampleResults.make()
    static let v1 = ResultsParser.parse(sample.v1Search, source: "v1.json")
    static let v2 = ResultsParser.parse(sample.v2Search, source: "v2.json")
    static var allTweets: [Tweet] {
        (v1.pages + v2.pages).flatMap { $0.tweets + $0.includedTweets }
    }

    @Test func isDeterministicPerSeed() {
        let again = SampleResults.make()
        #expect(again.v1Search == Self.sample.v1Search)
        #expect(again.v2Search == Self.sample.v2Search)
        #expect(again.assets == Self.sample.assets)
        let other = SampleResults.make(seed: 2)
        #expect(other.v1Search != Self.sample.v1Search)
        #expect(other.v2Search != Self.sample.v2Search)
    }

    @Test(arguments: [1, 2, 3, 0xDEAD_BEEF] as [UInt64])
    func parsesCleanlyAsBothFormats(_ seed: UInt64) throws {
        let sample = SampleResults.make(seed: seed)
        let v1 = ResultsParser.parse(sample.v1Search, source: "v1.json")
        let v2 = ResultsParser.parse(sample.v2Search, source: "v2.json")
        #expect(v1.allProblems.isEmpty)
        #expect(v2.allProblems.isEmpty)
        #expect(v1.pages.map(\.format) == [.v1Search])
        #expect(v2.pages.map(\.format) == [.v2Search])
        #expect(v1.tweets.count == SampleResults.tweetsPerDocument)
        #expect(v2.tweets.count == SampleResults.tweetsPerDocument)
        #expect(v1.tweets.count + v2.tweets.count >= 50)
        #expect(v1.pages.first?.query == "#ucd")
        #expect(v1.pages.first?.nextToken != nil)
        #expect(v2.pages.first?.nextToken != nil)
    }

    @Test func everyEntityRangeSlicesToItsText() {
        var checked = 0
        for tweet in Self.allTweets {
            let entities = tweet.entities
            let expected: [(TextRange, String)] =
                entities.hashtags.map { ($0.range, "#" + $0.tag) }
                + entities.mentions.map { ($0.range, "@" + $0.username) }
                + entities.urls.map { ($0.range, $0.url) }
            for (range, text) in expected {
                let slice = tweet.text.substring(codePoints: range).map(String.init)
                #expect(slice == text, "tweet \(tweet.id): \(range) in \(tweet.text.debugDescription)")
                checked += 1
            }
            for link in entities.media {
                #expect(tweet.text.substring(codePoints: link.range)?.hasPrefix("https://t.co/") == true)
            }
            #expect(!tweet.text.contains("&amp;") && !tweet.text.contains("&lt;"))
        }
        #expect(checked > 100)
        // The texts really do put emoji, ZWJ sequences and escaped characters before entities.
        let texts = Self.allTweets.map(\.text)
        #expect(texts.contains { $0.unicodeScalars.contains("\u{200D}") })
        #expect(texts.contains { $0.contains("🇮🇪") })
        #expect(texts.contains { $0.contains("&") })
    }

    @Test func authorsShareAvatars() {
        let tweets = Self.v1.tweets + Self.v2.tweets
        let authors = Set(tweets.map(\.author.id))
        #expect((10...14).contains(authors.count))
        for tweet in tweets {
            let avatar = tweet.author.profileImageURL ?? ""
            #expect(avatar.hasPrefix("https://pbs.twimg.com/profile_images/") && avatar.hasSuffix("_normal.jpg"))
            #expect(tweet.author.avatarURL?.hasSuffix("_400x400.jpg") == true)
        }
        let avatarKinds = Self.sample.assets.filter { $0.kind == .avatar }
        #expect(avatarKinds.count == authors.count)
        #expect(avatarKinds.allSatisfy { $0.width == 400 && $0.height == 400 })
    }

    @Test func mediaMixIsRealistic() throws {
        let tweets = Self.v1.tweets + Self.v2.tweets
        let photoCounts = tweets.map { $0.media.filter { $0.type == .photo }.count }
        #expect(photoCounts.allSatisfy { (0...4).contains($0) })
        #expect(photoCounts.filter { $0 >= 2 }.count >= 5)
        #expect(photoCounts.contains(4))
        #expect(photoCounts.filter { $0 == 0 }.count >= 10)

        let photos = Self.allTweets.flatMap(\.media).filter { $0.type == .photo }
        for photo in photos {
            let source = try #require(photo.sourceURL)
            #expect(source.wholeMatch(of: /https:\/\/pbs\.twimg\.com\/media\/[A-Za-z0-9_-]{15}\.jpg/) != nil)
            #expect(photo.imageURL?.hasSuffix("?format=jpg&name=orig") == true)
        }
        let sizes = Set(photos.compactMap { p in p.width.flatMap { w in p.height.map { "\(w)x\($0)" } } })
        #expect(sizes.isSubset(of: ["1200x675", "1600x900", "2048x1536", "1080x1350", "2048x2048", "4096x3072"]))
        #expect(sizes.count == 6)
        let huge = Self.sample.assets.filter { $0.kind == .photo && $0.width == 4096 && $0.height == 3072 }
        #expect(huge.count >= 3)

        let videos = Self.allTweets.flatMap(\.media).filter { $0.type == .video }
        let video = try #require(videos.first)
        #expect(videos.count == 1)
        #expect(video.imageURL?.wholeMatch(of: /https:\/\/pbs\.twimg\.com\/ext_tw_video_thumb\/\d+\/pu\/img\/[A-Za-z0-9_-]+\.jpg/) != nil)
        #expect(video.videoURL?.wholeMatch(of: /https:\/\/video\.twimg\.com\/ext_tw_video\/\d+\/pu\/vid\/1280x720\/[A-Za-z0-9_-]+\.mp4\?tag=12/) != nil)

        let gifs = Self.allTweets.flatMap(\.media).filter { $0.type == .animatedGIF }
        let gif = try #require(gifs.first)
        #expect(gifs.count == 1)
        #expect(gif.imageURL?.wholeMatch(of: /https:\/\/pbs\.twimg\.com\/tweet_video_thumb\/[A-Za-z0-9_-]+\.jpg/) != nil)
        #expect(gif.videoURL?.wholeMatch(of: /https:\/\/video\.twimg\.com\/tweet_video\/[A-Za-z0-9_-]+\.mp4/) != nil)
    }

    @Test func retweetAndQuoteMediaBelongToTheInnerTweet() throws {
        let v1Page = try #require(Self.v1.pages.first)
        let retweet = try #require(v1Page.tweets.first { $0.referencedID(.retweeted) != nil })
        let original = try #require(v1Page.includedTweets.first { $0.id == retweet.referencedID(.retweeted) })
        #expect(original.media.count >= 1)
        #expect(original.author.id != retweet.author.id)
        #expect(retweet.text.hasPrefix("RT @\(original.author.screenName): "))
        // As served: the retweet carries copies of the original's media, same ids and URLs.
        #expect(retweet.media == original.media)

        let v2Page = try #require(Self.v2.pages.first)
        let quote = try #require(v2Page.tweets.first { $0.referencedID(.quoted) != nil })
        let quoted = try #require(v2Page.includedTweets.first { $0.id == quote.referencedID(.quoted) })
        #expect(quote.media.isEmpty)
        #expect(quoted.media.count >= 1)
        #expect(quoted.author.screenName.isEmpty == false)
    }

    @Test func datesSpreadOverTheDaysBeforeTheReference() {
        let reference = SampleResults.referenceDate
        for page in Self.v1.pages + Self.v2.pages {
            let dates = page.tweets.compactMap(\.createdAt)
            #expect(dates.count == page.tweets.count)
            #expect(dates == dates.sorted(by: >), "results are newest first")
            #expect(dates.allSatisfy { $0 < reference && $0 > reference.addingTimeInterval(-7 * 86_400) })
            #expect((dates.first ?? reference).timeIntervalSince(dates.last ?? reference) > 3 * 86_400)
        }
    }

    @Test func everyURLMapsToAUniqueAsset() throws {
        let assets = Self.sample.assets
        let keys = assets.map(\.key)
        #expect(Set(keys).count == keys.count)
        // Every picture is its own but one: the repost, the same picture scaled down.
        #expect(Set(assets.map(\.seed)).count == assets.count - 1)
        let reposts = assets.filter { $0.repostOf != nil }
        #expect(reposts.count == 1)
        if let repost = reposts.first, let first = assets.first(where: { $0.seed == repost.seed && $0.repostOf == nil }) {
            #expect(repost.repostOf == [first.width, first.height])
            #expect(repost.width < first.width && repost.width * first.height == first.width * repost.height)
        }
        let byKey = Dictionary(uniqueKeysWithValues: assets.map { ($0.key, $0) })

        var used: Set<String> = []
        func expectAsset(_ url: String?, _ kind: SampleAsset.Kind) {
            guard let url else { return }
            let key = SampleAsset.key(forURL: url)
            #expect(key.flatMap { byKey[$0]?.kind } == kind, "\(url)")
            if let key { used.insert(key) }
        }
        for tweet in Self.allTweets {
            expectAsset(tweet.author.profileImageURL, .avatar)
            expectAsset(tweet.author.avatarURL, .avatar)
            for item in tweet.media {
                expectAsset(item.imageURL, item.type == .photo ? .photo : .poster)
                expectAsset(item.sourceURL, item.type == .photo ? .photo : .poster)
                expectAsset(item.videoURL, .video)
            }
        }
        // Every photo, avatar and poster is referenced; videos also list lower bitrates.
        #expect(assets.filter { $0.kind != .video }.allSatisfy { used.contains($0.key) })
        #expect(assets.filter { $0.kind == .poster }.allSatisfy { $0.width == 1280 && $0.height == 720 })
        // Keys as documented: photo id without extension, avatar name without _normal.
        let photo = try #require(Self.allTweets.flatMap(\.media).first { $0.type == .photo })
        let photoKey = try #require(SampleAsset.key(forURL: photo.sourceURL ?? ""))
        #expect(photoKey.count == 15)
        #expect(photo.sourceURL == "https://pbs.twimg.com/media/\(photoKey).jpg")
    }

    @Test func assetKeyIgnoresVariantSyntax() {
        #expect(SampleAsset.key(forURL: "https://pbs.twimg.com/media/FzX1aB2cD3eF4gH?format=jpg&name=orig") == "FzX1aB2cD3eF4gH")
        #expect(SampleAsset.key(forURL: "https://pbs.twimg.com/media/FzX1aB2cD3eF4gH.jpg:large") == "FzX1aB2cD3eF4gH")
        #expect(SampleAsset.key(forURL: "https://pbs.twimg.com/profile_images/1/alice_normal.jpg") == "alice")
        #expect(SampleAsset.key(forURL: "https://pbs.twimg.com/profile_images/1/alice_400x400.jpg") == "alice")
        #expect(SampleAsset.key(forURL: "https://video.twimg.com/ext_tw_video/1/pu/vid/1280x720/abc.mp4?tag=12") == "abc")
        #expect(SampleAsset.key(forURL: "") == nil)
    }
}

import Foundation
import Testing
@testable import TweetModel

/// Mastodon statuses as the REST API serves them (shapes from its documentation,
/// contents written for these tests).
@Suite("Mastodon statuses")
struct MastodonParsingTests {
    static func status(
        id: String, content: String, extra: String = "", account: String = #"{"id": "109", "acct": "ana@example.social", "username": "ana", "display_name": "Ana ✨", "avatar": "https://files.example.social/avatars/ana.gif", "avatar_static": "https://files.example.social/avatars/ana.png"}"#
    ) -> String {
        #"{"id": "\#(id)", "created_at": "2026-11-20T10:15:30.000Z", "url": "https://example.social/@ana/\#(id)", "content": \#(content), "account": \#(account), "language": "en"\#(extra)}"#
    }

    static let content = #""<p>Night over the lake <a href=\"https://example.social/tags/astro\" class=\"mention hashtag\" rel=\"tag\">#<span>astro</span></a> with <span class=\"h-card\"><a href=\"https://other.host/@bo\" class=\"u-url mention\">@<span>bo</span></a></span> &amp; friends</p><p>Photos: <a href=\"https://photos.example.org/album/2026/lake\" rel=\"nofollow noopener\" target=\"_blank\"><span class=\"invisible\">https://</span><span class=\"ellipsis\">photos.example.org/album/2026</span><span class=\"invisible\">/lake</span></a><br>🌌 done</p>""#

    @Test func aTagTimelineBecomesPostsWithEntitiesFromTheHTML() throws {
        let mentions = #", "mentions": [{"id": "77", "acct": "bo@other.host", "username": "bo", "url": "https://other.host/@bo"}], "tags": [{"name": "astro"}]"#
        let media = #", "media_attachments": [{"id": "5001", "type": "image", "url": "https://files.example.social/media/lake.jpg", "preview_url": "https://files.example.social/media/small/lake.jpg", "remote_url": "https://origin.example/media/lake.jpg", "description": "A lake at night", "meta": {"original": {"width": 4000, "height": 3000}}}, {"id": "5002", "type": "gifv", "url": "https://files.example.social/media/loop.mp4", "preview_url": "https://files.example.social/media/loop.png"}, {"id": "5003", "type": "unknown"}, {"id": "5004", "type": "audio", "url": "https://files.example.social/media/song.mp3"}]"#
        let json = "[" + Self.status(id: "113", content: Self.content, extra: mentions + media + #", "sensitive": true, "spoiler_text": "night sky""#) + "]"
        let results = Fixtures.parse(json)
        #expect(results.allProblems.isEmpty)
        #expect(results.pages.map(\.format) == [.mastodonStatuses])
        let post = try #require(results.tweets.first)
        #expect(post.network == .mastodon)
        #expect(post.text == "Night over the lake #astro with @bo & friends\n\nPhotos: https://photos.example.org/album/2026/lake\n🌌 done")
        #expect(post.url == "https://example.social/@ana/113")
        #expect(post.sensitive && post.spoilerText == "night sky")
        #expect(post.author.screenName == "ana@example.social" && post.author.name == "Ana ✨")
        #expect(post.author.profileImageURL == "https://files.example.social/avatars/ana.png")
        #expect(post.createdAt == Date(timeIntervalSince1970: 1_795_169_730))

        let tag = try #require(post.entities.hashtags.first)
        #expect(tag.tag == "astro" && post.text.substring(codePoints: tag.range) == "#astro")
        let mention = try #require(post.entities.mentions.first)
        #expect(mention.username == "bo@other.host" && mention.id == "77")
        #expect(post.text.substring(codePoints: mention.range) == "@bo")
        let link = try #require(post.entities.urls.first)
        #expect(link.url == "https://photos.example.org/album/2026/lake")
        #expect(post.text.substring(codePoints: link.range) == "https://photos.example.org/album/2026/lake")

        #expect(post.media.map(\.type) == [.photo, .animatedGIF, .audio])
        #expect(post.media[2].videoURL == nil, "a sound file is no MP4: not fetched")
        let photo = post.media[0]
        #expect(photo.imageURL == "https://files.example.social/media/lake.jpg")
        #expect(photo.sourceURL == "https://origin.example/media/lake.jpg")
        #expect(photo.width == 4000 && photo.height == 3000 && photo.altText == "A lake at night")
        #expect(post.media[1].imageURL == "https://files.example.social/media/loop.png")
        #expect(post.media[1].videoURL == "https://files.example.social/media/loop.mp4")
    }

    @Test func aReblogLinksToItsOriginalWhichKeepsItsMedia() throws {
        let original = Self.status(id: "200", content: #""<p>original</p>""#,
                                   extra: #", "media_attachments": [{"id": "9", "type": "image", "url": "https://files.example.social/o.png"}]"#)
        let json = "[" + Self.status(id: "201", content: #""""#, extra: #", "reblog": \#(original)"#) + "]"
        let results = Fixtures.parse(json)
        let wrapper = try #require(results.tweets.first)
        #expect(wrapper.references == [TweetReference(kind: .retweeted, id: "200")])
        #expect(wrapper.media.isEmpty)
        let included = try #require(results.pages.first?.includedTweets.first)
        #expect(included.id == "200" && included.media.map(\.imageURL) == ["https://files.example.social/o.png"])
    }

    @Test func searchResultsAndSingleStatusesAreRecognised() throws {
        let search = #"{"accounts": [], "hashtags": [], "statuses": [\#(Self.status(id: "1", content: #""<p>a</p>""#))]}"#
        #expect(Fixtures.parse(search).pages.map(\.format) == [.mastodonSearch])
        #expect(Fixtures.parse(Self.status(id: "2", content: #""<p>b</p>""#)).pages.map(\.format) == [.mastodonStatus])
        // A v1.1 search page also has "statuses": its search_metadata keeps it X's.
        let v1 = #"{"statuses": [\#(Fixtures.v1Tweet(id: "3", text: "c"))], "search_metadata": {}}"#
        #expect(Fixtures.parse(v1).pages.map(\.format) == [.v1Search])
        // A media attachment alone (an upload's answer) is no post, and says so.
        let attachment = Fixtures.parse(#"{"id": "5", "type": "image", "url": "https://e.example/m.jpg", "meta": {"original": {"width": 2}}}"#)
        #expect(attachment.pages.isEmpty && attachment.problems.first?.message.contains("not a Twitter API response") == true)
        // A search saved without its accounts and hashtags is still Mastodon's.
        let bare = #"{"statuses": [\#(Self.status(id: "4", content: #""<p>d</p>""#))]}"#
        #expect(Fixtures.parse(bare).pages.map(\.format) == [.mastodonSearch])
        let error = Fixtures.parse(#"{"error": "Record not found"}"#)
        #expect(error.allProblems.first?.message.contains("Record not found") == true)
    }

    @Test func aMalformedStatusIsSkippedWithItsPosition() throws {
        let json = "[" + Self.status(id: "1", content: #""<p>ok</p>""#) + #", {"content": "<p>no id</p>", "account": {}}, "#
            + Self.status(id: "3", content: #"42"#) + "]"
        let results = Fixtures.parse(json)
        #expect(results.tweets.map(\.id) == ["1"])
        #expect(results.allProblems.map(\.location) == ["[1]", "[2]"])
    }

    @Test(arguments: [
        ("<p>a</p><p>b</p>", "a\n\nb"), ("x<br/>y<br>", "x\ny"), ("&lt;b&gt; &#x1F600; &#39;q&#39; &bogus; &", "<b> 😀 'q' &bogus; &"),
        ("<p>unclosed <a href='u'>link", "unclosed link"), ("< not a tag", "< not a tag"), ("", ""),
    ])
    func htmlBecomesText(_ html: String, _ text: String) {
        #expect(MastodonHTML(html).text == text)
    }

    @Test func tagsEndAtTheirBracketEvenBeforeAJoiner() throws {
        // A ZWNJ right after `>` makes one Character with it; the tag still ends there.
        let parsed = MastodonHTML("<p>@<span>ali</span></a></span>\u{200C}ها <a href=\"https://x.example/\">x</a> &amp;\u{301}</p>")
        #expect(parsed.text == "@ali\u{200C}ها x &\u{301}")
        let link = try #require(parsed.links.first)
        #expect(link.href == "https://x.example/" && parsed.text.substring(codePoints: link.range) == "x")
    }

    @Test func linksDoNotNestAndATrailingBreakIsTrimmedFromTheLast() {
        let nested = MastodonHTML(String(repeating: "<a href=x>", count: 1000) + "tail")
        #expect(nested.text == "tail")
        #expect(nested.links.count == 1)
        let trailing = MastodonHTML("<p>see <a href=\"https://e.example/\">here<br></a></p>")
        #expect(trailing.text == "see here")
        #expect(trailing.links.first?.text == "here" && trailing.links.first?.range == TextRange(start: 4, end: 8))
    }

    @Test func linkRangesCountCodePoints() {
        let html = #"<p>🇫🇷 café <a href="https://x.example/tags/t" class="mention hashtag">#t</a></p>"#
        let parsed = MastodonHTML(html)
        #expect(parsed.links.first?.range == TextRange(start: 8, end: 10))
        #expect(parsed.text.substring(codePoints: parsed.links[0].range) == "#t")
    }
}

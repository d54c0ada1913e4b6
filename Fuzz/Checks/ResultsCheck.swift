import Foundation
import TweetModel

/// Search results as strangers serve them: any bytes through the parser (X v1.1 and v2,
/// Mastodon, Bluesky, JSON Lines, single posts). It must never trap, every entity range
/// it keeps must lie inside its post's text (the parsers drop the others), and what it
/// parsed must survive the Codable round trip the manifest relies on. Cut into slices
/// as large documents are, it must read exactly as whole, or not be cut.
public enum ResultsCheck: FuzzCheck {
    public static let name = "fuzz-results"

    public static func run(_ input: [UInt8]) -> String? {
        let parsed = ResultsParser.parse(Data(input), source: "fuzz")
        for page in parsed.pages {
            for tweet in page.tweets + page.includedTweets {
                let e = tweet.entities
                let ranges = e.hashtags.map(\.range) + e.mentions.map(\.range) + e.urls.map(\.range)
                    + e.cashtags.map(\.range) + e.media.map(\.range)
                let length = tweet.text.codePointCount
                for range in ranges {
                    guard range.end <= length, tweet.text.substring(codePoints: range) != nil else {
                        return "\(tweet.network) post \(tweet.id): entity range \(range) outside its \(length) code points"
                    }
                }
            }
        }
        // Cut into slices (as large documents are), it must read exactly the same, or not be cut.
        for slices in [2, 3] {
            if let sliced = ResultsParser.parseInSlices(Data(input), source: "fuzz", slices: slices), sliced != parsed {
                return "parsed in \(slices) slices, the results differ from the whole parse"
            }
        }
        do {
            let decoded = try JSONDecoder().decode(ParsedResults.self, from: JSONEncoder().encode(parsed))
            if decoded != parsed { return "parsed results change in a Codable round trip" }
        } catch {
            return "parsed results do not round-trip: \(error)"
        }
        return nil
    }

    public static func seeds() -> [String: [UInt8]] { ResultsSeeds.all.mapValues { Array($0.utf8) } }
}

/// Small documents of each shape the parser knows, written for these seeds.
enum ResultsSeeds {
    static let all: [String: String] = [
        "v1-search.json": """
        {"statuses":[{"id_str":"101","created_at":"Sun Nov 22 06:00:00 +0000 2026",\
        "full_text":"Night sky over the lake #astro @someone https://t.co/a1 https://t.co/m1",\
        "entities":{"hashtags":[{"text":"astro","indices":[24,30]}],\
        "user_mentions":[{"screen_name":"someone","id_str":"7","indices":[31,39]}],\
        "urls":[{"url":"https://t.co/a1","expanded_url":"https://example.org/post","display_url":"example.org/post","indices":[40,55]}]},\
        "extended_entities":{"media":[{"id_str":"900","type":"photo","media_url_https":"https://pbs.twimg.com/media/Abc.jpg",\
        "url":"https://t.co/m1","indices":[56,71],"sizes":{"large":{"w":2048,"h":1365}}}]},\
        "user":{"id_str":"42","screen_name":"stargazer","name":"Star Gazer ✨",\
        "profile_image_url_https":"https://pbs.twimg.com/profile_images/1/a_normal.jpg"},\
        "retweeted_status":{"id_str":"99","created_at":"Sat Nov 21 06:00:00 +0000 2026","full_text":"orig 🇫🇷",\
        "user":{"id_str":"43","screen_name":"orig","name":"O"}}}],\
        "search_metadata":{"query":"%23astro","count":1,"next_results":"?max_id=100&q=%23astro"}}
        """,
        "v2-recent.json": """
        {"data":[{"id":"201","text":"Two moons 🌕🌕 #moon https://t.co/x","author_id":"5",\
        "created_at":"2026-11-22T06:00:00.000Z","attachments":{"media_keys":["3_1","7_2"]},\
        "entities":{"hashtags":[{"start":14,"end":19,"tag":"moon"}],\
        "urls":[{"start":20,"end":35,"url":"https://t.co/x","expanded_url":"https://example.org/"}]},\
        "referenced_tweets":[{"type":"quoted","id":"202"}]}],\
        "includes":{"users":[{"id":"5","username":"luna","name":"Luna","profile_image_url":"https://pbs.twimg.com/profile_images/5/b_normal.png"}],\
        "media":[{"media_key":"3_1","type":"photo","url":"https://pbs.twimg.com/media/Def.png","width":800,"height":600},\
        {"media_key":"7_2","type":"video","preview_image_url":"https://pbs.twimg.com/ext_tw_video_thumb/2/pu/img/v.jpg",\
        "variants":[{"bit_rate":832000,"content_type":"video/mp4","url":"https://video.twimg.com/v.mp4"}]}],\
        "tweets":[{"id":"202","text":"quoted","author_id":"5"}]},\
        "meta":{"result_count":1,"next_token":"abc"}}
        """,
        "lines.jsonl": """
        {"id_str":"301","full_text":"line one #a","entities":{"hashtags":[{"text":"a","indices":[9,11]}]},"user":{"id_str":"1","screen_name":"u"}}
        {"id":"302","text":"line two","author_id":"1"}
        not json
        """,
        "errors.json": """
        {"errors":[{"code":88,"message":"Rate limit exceeded"}]}
        """,
        "empty.json": #"{"statuses":[],"search_metadata":{"count":0}}"#,
        "mastodon-tag.json": """
        [{"id":"113","created_at":"2026-11-20T10:15:30.000Z","url":"https://example.social/@ana/113",\
        "content":"<p>Lake <a href=\\"https://example.social/tags/astro\\" class=\\"mention hashtag\\">#<span>astro</span></a> \
        <span class=\\"h-card\\"><a href=\\"https://other.host/@bo\\" class=\\"u-url mention\\">@<span>bo</span></a></span> &amp; \
        <a href=\\"https://x.example/a\\"><span class=\\"invisible\\">https://</span><span class=\\"ellipsis\\">x.example</span></a><br>🌌</p>",\
        "account":{"id":"109","acct":"ana","display_name":"Ana","avatar_static":"https://files.example.social/a.png"},\
        "mentions":[{"id":"77","acct":"bo@other.host","url":"https://other.host/@bo"}],"sensitive":true,"spoiler_text":"cw",\
        "media_attachments":[{"id":"5","type":"image","url":"https://files.example.social/m.jpg","remote_url":"https://o.example/m.jpg",\
        "meta":{"original":{"width":40,"height":30}}},{"id":"6","type":"gifv","url":"https://f.example/l.mp4","preview_url":"https://f.example/l.png"}],\
        "reblog":{"id":"100","content":"<p>orig</p>","account":{"id":"1"}}}]
        """,
        "bluesky-feed.json": """
        {"feed":[{"post":{"uri":"at://did:plc:a/app.bsky.feed.post/3k","cid":"c","author":{"did":"did:plc:a","handle":"a.example"},\
        "record":{"text":"café 🌌 #night @bo.example","facets":[{"index":{"byteStart":11,"byteEnd":17},\
        "features":[{"$type":"app.bsky.richtext.facet#tag","tag":"night"}]},{"index":{"byteStart":18,"byteEnd":29},\
        "features":[{"$type":"app.bsky.richtext.facet#mention","did":"did:plc:bo"}]}],"createdAt":"2026-11-21T08:00:00Z"},\
        "embed":{"$type":"app.bsky.embed.recordWithMedia#view","media":{"$type":"app.bsky.embed.images#view",\
        "images":[{"thumb":"https://cdn.example/t","fullsize":"https://cdn.example/f","alt":"m","aspectRatio":{"width":2,"height":1}}]},\
        "record":{"record":{"uri":"at://did:plc:q/app.bsky.feed.post/q","author":{"did":"did:plc:q"},"value":{"text":"q"}}}}},\
        "reason":{"$type":"app.bsky.feed.defs#reasonRepost","by":{"did":"did:plc:b","handle":"b.example"}}}],"cursor":"n"}
        """,
    ]
}

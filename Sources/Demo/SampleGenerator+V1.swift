import Foundation
import TweetModel

// The sample as v1.1 `search/tweets` pages.

extension SampleGenerator {
    func encode(_ object: JSON) -> Data {
        // Sorted keys: dictionary order is not stable across runs, the sample must be.
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    func v1Page(_ tweets: [SampleTweet]) -> JSON {
        let ids = tweets.map(\.id)
        let maxID = ids.max() ?? 0
        let minID = ids.min() ?? 1
        return [
            "statuses": tweets.map { v1Tweet($0) },
            "search_metadata": [
                "completed_in": 0.042,
                "max_id": maxID, "max_id_str": String(maxID),
                "next_results": "?max_id=\(minID - 1)&q=%23ucd&count=\(tweets.count)&include_entities=1&result_type=recent",
                "query": "%23ucd",
                "refresh_url": "?since_id=\(maxID)&q=%23ucd&result_type=recent&include_entities=1",
                "count": tweets.count,
                "since_id": 0, "since_id_str": "0",
            ] as JSON,
        ]
    }

    func v1Tweet(_ tweet: SampleTweet) -> JSON {
        var entities: JSON = [
            "hashtags": tweet.text.entities.compactMap { entity -> JSON? in
                guard case .hashtag(let tag) = entity.kind else { return nil }
                return ["text": tag, "indices": [entity.start, entity.end]]
            },
            "symbols": [] as [JSON],
            "user_mentions": tweet.text.entities.compactMap { entity -> JSON? in
                guard case .mention(let index) = entity.kind else { return nil }
                let user = users[index]
                return ["screen_name": user.screenName, "name": user.name, "id": user.id, "id_str": String(user.id),
                        "indices": [entity.start, entity.end]]
            },
            "urls": tweet.text.entities.compactMap { entity -> JSON? in
                guard case .link(let url, let expanded, let display) = entity.kind else { return nil }
                return ["url": url, "expanded_url": expanded, "display_url": display, "indices": [entity.start, entity.end]]
            },
        ]
        var json: JSON = [
            "created_at": TwitterDate.v1String(tweet.date),
            "id": tweet.id, "id_str": String(tweet.id),
            "full_text": tweet.text.escaped,
            "truncated": false,
            "display_text_range": [0, tweet.mediaLink.map { $0.start - 1 } ?? tweet.text.count],
            "metadata": ["iso_language_code": tweet.lang, "result_type": "recent"],
            "source": "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
            "in_reply_to_status_id": NSNull(), "in_reply_to_status_id_str": NSNull(),
            "in_reply_to_user_id": NSNull(), "in_reply_to_user_id_str": NSNull(), "in_reply_to_screen_name": NSNull(),
            "user": v1User(users[tweet.author]),
            "geo": NSNull(), "coordinates": NSNull(), "place": NSNull(), "contributors": NSNull(),
            "is_quote_status": tweet.quoteOf != nil,
            "retweet_count": tweet.retweetOf.map { $0.metrics.retweets } ?? tweet.metrics.retweets,
            "favorite_count": tweet.metrics.likes,
            "favorited": false, "retweeted": false,
            "lang": tweet.lang,
        ]
        if !tweet.media.isEmpty, let link = tweet.mediaLink {
            let items = tweet.media.enumerated().map { index, item in
                v1Media(item, link: link, permalink: permalink(tweet.retweetOf ?? tweet, item, index))
            }
            entities["media"] = [items[0]]
            json["extended_entities"] = ["media": items]
            json["possibly_sensitive"] = false
        }
        json["entities"] = entities
        if let original = tweet.retweetOf {
            json["retweeted_status"] = v1Tweet(original)
        }
        if let quoted = tweet.quoteOf {
            json["quoted_status"] = v1Tweet(quoted)
            json["quoted_status_id"] = quoted.id
            json["quoted_status_id_str"] = String(quoted.id)
        }
        return json
    }

    func permalink(_ tweet: SampleTweet, _ item: SampleMedia, _ index: Int) -> String {
        "https://twitter.com/\(users[tweet.author].screenName)/status/\(tweet.id)/\(item.pathKind)/\(index + 1)"
    }

    func v1Media(_ item: SampleMedia, link: (url: String, start: Int, end: Int), permalink: String) -> JSON {
        var json: JSON = [
            "id": item.id, "id_str": String(item.id),
            "indices": [link.start, link.end],
            "url": link.url,
            "display_url": "pic.twitter.com/" + link.url.dropFirst("https://t.co/".count),
            "expanded_url": permalink,
        ]
        let still: String
        let size: (Int, Int)
        switch item {
        case .photo(_, let name, let width, let height, let alt):
            still = "https://pbs.twimg.com/media/\(name).jpg"
            size = (width, height)
            json["type"] = "photo"
            if let alt { json["ext_alt_text"] = alt }
        case .video(let id, let poster, let variants, let playlist):
            still = "https://pbs.twimg.com/ext_tw_video_thumb/\(id)/pu/img/\(poster).jpg"
            size = (1280, 720)
            json["type"] = "video"
            json["video_info"] = [
                "aspect_ratio": [16, 9],
                "duration_millis": 14_533,
                "variants": [[
                    "content_type": "application/x-mpegURL",
                    "url": "https://video.twimg.com/ext_tw_video/\(id)/pu/pl/\(playlist).m3u8?tag=12&container=fmp4",
                ] as JSON] + variants.map { variant -> JSON in
                    ["bitrate": variant.bitrate, "content_type": "video/mp4", "url": videoURL(id: id, variant)]
                },
            ] as JSON
        case .gif(_, let poster, let mp4, let width, let height):
            still = "https://pbs.twimg.com/tweet_video_thumb/\(poster).jpg"
            size = (width, height)
            json["type"] = "animated_gif"
            json["video_info"] = [
                "aspect_ratio": [249, 140],
                "variants": [["bitrate": 0, "content_type": "video/mp4", "url": "https://video.twimg.com/tweet_video/\(mp4).mp4"] as JSON],
            ] as JSON
        }
        json["media_url"] = "http://" + still.dropFirst("https://".count)
        json["media_url_https"] = still
        json["original_info"] = ["width": size.0, "height": size.1]
        json["sizes"] = Self.v1Sizes(width: size.0, height: size.1)
        return json
    }

    /// The renditions v1.1 lists: `fit` scales within a box, `thumb` crops to 150x150.
    static func v1Sizes(width: Int, height: Int) -> JSON {
        func fit(_ box: Int) -> JSON {
            let scale = min(1.0, Double(box) / Double(max(width, height)))
            return ["w": Int((Double(width) * scale).rounded()), "h": Int((Double(height) * scale).rounded()), "resize": "fit"]
        }
        return ["thumb": ["w": 150, "h": 150, "resize": "crop"] as JSON, "small": fit(680), "medium": fit(1200), "large": fit(2048)]
    }

    func v1User(_ user: SampleUser) -> JSON {
        [
            "id": user.id, "id_str": String(user.id),
            "name": user.name, "screen_name": user.screenName,
            "location": "Dublin, Ireland", "description": user.bio, "url": NSNull(),
            "entities": ["description": ["urls": [] as [JSON]]],
            "protected": false,
            "followers_count": user.followers, "friends_count": user.followers / 7 + 30, "listed_count": user.followers / 90,
            "created_at": TwitterDate.v1String(user.createdAt),
            "favourites_count": user.followers / 3, "statuses_count": user.followers / 2 + 100,
            "verified": false, "lang": NSNull(),
            "profile_image_url": "http://" + user.avatarURL.dropFirst("https://".count),
            "profile_image_url_https": user.avatarURL,
            "default_profile": false, "default_profile_image": false,
        ]
    }
}

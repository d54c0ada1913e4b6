import Foundation
import TweetModel

// The sample as v2 `tweets/search/recent` pages with `includes`.

extension SampleGenerator {
    func v2Page(_ tweets: [SampleTweet], nextToken: String) -> JSON {
        let quoted = tweets.compactMap(\.quoteOf)
        let everyone = tweets + quoted
        var userIndexes: [Int] = []
        for tweet in everyone {
            for index in [tweet.author] + tweet.text.entities.compactMap({ entity -> Int? in
                if case .mention(let index) = entity.kind { return index }
                return nil
            }) where !userIndexes.contains(index) {
                userIndexes.append(index)
            }
        }
        let ids = tweets.map(\.id)
        return [
            "data": tweets.map { v2Tweet($0) },
            "includes": [
                "media": everyone.flatMap { $0.media.map { v2Media($0) } },
                "users": userIndexes.map { v2User(users[$0]) },
                "tweets": quoted.map { v2Tweet($0) },
            ] as JSON,
            "meta": [
                "newest_id": String(ids.max() ?? 0),
                "oldest_id": String(ids.min() ?? 0),
                "result_count": tweets.count,
                "next_token": nextToken,
            ] as JSON,
        ]
    }

    func v2Tweet(_ tweet: SampleTweet) -> JSON {
        var urls = tweet.text.entities.compactMap { entity -> JSON? in
            guard case .link(let url, let expanded, let display) = entity.kind else { return nil }
            return ["start": entity.start, "end": entity.end, "url": url, "expanded_url": expanded, "display_url": display]
        }
        if let link = tweet.mediaLink {
            for (index, item) in tweet.media.enumerated() {
                urls.append([
                    "start": link.start, "end": link.end, "url": link.url,
                    "expanded_url": permalink(tweet, item, index),
                    "display_url": "pic.twitter.com/" + link.url.dropFirst("https://t.co/".count),
                    "media_key": item.mediaKey,
                ])
            }
        }
        var entities: JSON = [:]
        let hashtags = tweet.text.entities.compactMap { entity -> JSON? in
            guard case .hashtag(let tag) = entity.kind else { return nil }
            return ["start": entity.start, "end": entity.end, "tag": tag]
        }
        let mentions = tweet.text.entities.compactMap { entity -> JSON? in
            guard case .mention(let index) = entity.kind else { return nil }
            return ["start": entity.start, "end": entity.end, "username": users[index].screenName, "id": String(users[index].id)]
        }
        if !hashtags.isEmpty { entities["hashtags"] = hashtags }
        if !mentions.isEmpty { entities["mentions"] = mentions }
        if !urls.isEmpty { entities["urls"] = urls }

        var json: JSON = [
            "id": String(tweet.id),
            "text": tweet.text.escaped,
            "author_id": String(users[tweet.author].id),
            "created_at": TwitterDate.isoString(tweet.date),
            "conversation_id": String(tweet.id),
            "edit_history_tweet_ids": [String(tweet.id)],
            "lang": tweet.lang,
            "possibly_sensitive": false,
            "reply_settings": "everyone",
            "public_metrics": [
                "retweet_count": tweet.metrics.retweets, "reply_count": tweet.metrics.replies,
                "like_count": tweet.metrics.likes, "quote_count": tweet.metrics.quotes,
                "bookmark_count": tweet.metrics.likes / 20, "impression_count": tweet.metrics.likes * 37 + 120,
            ],
        ]
        if !entities.isEmpty { json["entities"] = entities }
        if !tweet.media.isEmpty { json["attachments"] = ["media_keys": tweet.media.map(\.mediaKey)] }
        if let quoted = tweet.quoteOf {
            json["referenced_tweets"] = [["type": "quoted", "id": String(quoted.id)]]
        }
        return json
    }

    func v2Media(_ item: SampleMedia) -> JSON {
        switch item {
        case .photo(_, let name, let width, let height, let alt):
            var json: JSON = ["media_key": item.mediaKey, "type": "photo", "url": "https://pbs.twimg.com/media/\(name).jpg",
                              "width": width, "height": height]
            if let alt { json["alt_text"] = alt }
            return json
        case .video(let id, let poster, let variants, let playlist):
            return [
                "media_key": item.mediaKey, "type": "video", "width": 1280, "height": 720, "duration_ms": 14_533,
                "preview_image_url": "https://pbs.twimg.com/ext_tw_video_thumb/\(id)/pu/img/\(poster).jpg",
                "variants": [[
                    "content_type": "application/x-mpegURL",
                    "url": "https://video.twimg.com/ext_tw_video/\(id)/pu/pl/\(playlist).m3u8?tag=12&container=fmp4",
                ] as JSON] + variants.map { variant -> JSON in
                    ["bit_rate": variant.bitrate, "content_type": "video/mp4", "url": videoURL(id: id, variant)]
                },
            ]
        case .gif(_, let poster, let mp4, let width, let height):
            return [
                "media_key": item.mediaKey, "type": "animated_gif", "width": width, "height": height,
                "preview_image_url": "https://pbs.twimg.com/tweet_video_thumb/\(poster).jpg",
                "variants": [["bit_rate": 0, "content_type": "video/mp4", "url": "https://video.twimg.com/tweet_video/\(mp4).mp4"] as JSON],
            ]
        }
    }

    func v2User(_ user: SampleUser) -> JSON {
        [
            "id": String(user.id), "username": user.screenName, "name": user.name,
            "profile_image_url": user.avatarURL,
            "created_at": TwitterDate.isoString(user.createdAt),
            "description": user.bio, "verified": false, "protected": false,
            "public_metrics": ["followers_count": user.followers, "following_count": user.followers / 7 + 30,
                               "tweet_count": user.followers / 2 + 100, "listed_count": user.followers / 90],
        ]
    }
}

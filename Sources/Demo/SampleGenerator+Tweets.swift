import Foundation

// The sample's users, tweets, retweets and quotes, drawn from the seed.

extension SampleGenerator {
    static func counts(_ spec: [Int: Int]) -> [Int] {
        spec.sorted { $0.key < $1.key }.flatMap { Array(repeating: $0.key, count: $0.value) }
    }

    mutating func makePhotoSizes(count: Int) -> [(width: Int, height: Int)] {
        let common = [(1200, 675), (1600, 900), (2048, 1536), (1080, 1350), (2048, 2048)]
        var sizes = (0..<max(0, count - 4)).map { common[$0 % common.count] }
        sizes += Array(repeating: (4096, 3072), count: min(4, count))
        random.shuffle(&sizes)
        return sizes.map { (width: $0.0, height: $0.1) }
    }

    /// `count` instants in the six days before `end`, newest first.
    mutating func spreadDates(count: Int, before end: Date) -> [Date] {
        let span = 6 * 86_400
        let offsets = (0..<count).map { _ in 120 + random.below(span) }.sorted()
        return offsets.map { end.addingTimeInterval(-TimeInterval($0)) }
    }

    mutating func snowflake(_ date: Date) -> UInt64 {
        let millis = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        let sinceEpoch = millis > Self.twitterEpochMillis ? millis - Self.twitterEpochMillis : 0
        return (sinceEpoch << 22) | (random.next() & 0x3F_FFFF)
    }

    /// A fresh random name that no other URL of the sample uses as its key.
    mutating func uniqueName(_ length: Int, alphabet: [Character], prefix: String = "") -> String {
        while true {
            let name = prefix + random.string(length - prefix.count, from: alphabet)
            let clashes = ["_normal", "_400x400", "_bigger", "_mini"].contains { name.hasSuffix($0) }
            if !clashes, usedNames.insert(name).inserted { return name }
        }
    }

    mutating func addAsset(_ url: String, _ kind: SampleAsset.Kind, _ width: Int, _ height: Int) {
        guard let key = SampleAsset.key(forURL: url), assetKeys.insert(key).inserted else { return }
        assets.append(SampleAsset(key: key, kind: kind, width: width, height: height, seed: random.next()))
    }

    mutating func makeUser(_ person: (screenName: String, name: String, bio: String)) -> SampleUser {
        let id = 100_000_000 + random.next() % 1_600_000_000_000_000_000
        let folder = 1_500_000_000_000_000_000 + random.next() % 200_000_000_000_000_000
        let file = uniqueName(8, alphabet: Self.base64URL)
        let avatar = "https://pbs.twimg.com/profile_images/\(folder)/\(file)_normal.jpg"
        addAsset(avatar, .avatar, 400, 400)
        let joined = Date(timeIntervalSince1970: 1_230_000_000 + TimeInterval(random.below(420_000_000)))
        return SampleUser(id: id, screenName: person.screenName, name: person.name, bio: person.bio,
                          avatarURL: avatar, createdAt: joined, followers: 40 + random.below(60_000))
    }

    mutating func makeTweet(date: Date, author: Int, photos: Int, video: Bool = false, gif: Bool = false) -> SampleTweet {
        let template = video ? Self.videoTemplate : gif ? Self.gifTemplate : random.pick(Self.templates)
        var text = SampleText()
        for segment in template.segments {
            switch segment {
            case .text(let plain):
                text.append(plain)
            case .hashtag(let tag):
                text.entity(.hashtag(tag), text: "#" + tag)
            case .mention:
                var other = random.below(users.count)
                if other == author { other = (other + 1) % users.count }
                text.entity(.mention(other), text: "@" + users[other].screenName)
            case .link(let expanded, let display):
                let link = tco()
                text.entity(.link(url: link, expanded: expanded, display: display), text: link)
            }
        }

        var media: [SampleMedia] = []
        for _ in 0..<photos {
            let size = photoSizes.isEmpty ? (width: 1200, height: 675) : photoSizes.removeFirst()
            let name = uniqueName(15, alphabet: Self.base64URL, prefix: "G")
            let url = "https://pbs.twimg.com/media/\(name).jpg"
            addAsset(url, .photo, size.width, size.height)
            let alt = random.below(3) == 0 ? random.pick(Self.altTexts) : nil
            media.append(.photo(id: snowflake(date.addingTimeInterval(-5)), name: name, width: size.width, height: size.height, altText: alt))
        }
        if video {
            let id = snowflake(date.addingTimeInterval(-5))
            let poster = uniqueName(16, alphabet: Self.base64URL)
            addAsset("https://pbs.twimg.com/ext_tw_video_thumb/\(id)/pu/img/\(poster).jpg", .poster, 1280, 720)
            let variants = [(2_176_000, 1280, 720), (832_000, 640, 360), (256_000, 480, 270)].map { rate, w, h in
                (bitrate: rate, width: w, height: h, name: uniqueName(16, alphabet: Self.base64URL))
            }
            for variant in variants {
                addAsset(videoURL(id: id, variant), .video, variant.width, variant.height)
            }
            media.append(.video(id: id, poster: poster, variants: variants, playlist: uniqueName(16, alphabet: Self.base64URL)))
        }
        if gif {
            let poster = uniqueName(15, alphabet: Self.base64URL, prefix: "G")
            let mp4 = uniqueName(15, alphabet: Self.base64URL, prefix: "G")
            addAsset("https://pbs.twimg.com/tweet_video_thumb/\(poster).jpg", .poster, 1280, 720)
            addAsset("https://video.twimg.com/tweet_video/\(mp4).mp4", .video, 498, 280)
            media.append(.gif(id: snowflake(date.addingTimeInterval(-5)), poster: poster, mp4: mp4, width: 498, height: 280))
        }

        var mediaLink: (url: String, start: Int, end: Int)?
        if !media.isEmpty {
            text.append(" ")
            let link = tco()
            let start = text.count
            text.append(link)
            mediaLink = (link, start, text.count)
        }
        let metrics = (retweets: random.below(40), likes: random.below(400), replies: random.below(12), quotes: random.below(4))
        return SampleTweet(id: snowflake(date), date: date, author: author, text: text, media: media,
                           mediaLink: mediaLink, lang: template.lang, metrics: metrics)
    }

    mutating func tco() -> String {
        "https://t.co/" + random.string(10, from: Self.alphanumerics)
    }

    func videoURL(id: UInt64, _ variant: (bitrate: Int, width: Int, height: Int, name: String)) -> String {
        "https://video.twimg.com/ext_tw_video/\(id)/pu/vid/\(variant.width)x\(variant.height)/\(variant.name).mp4?tag=12"
    }

    mutating func makeRetweet(of original: SampleTweet, by author: Int, date: Date) -> SampleTweet {
        var text = SampleText()
        text.append("RT ")
        text.entity(.mention(original.author), text: "@" + users[original.author].screenName)
        text.append(": ")
        let shift = text.count
        text.append(Self.plain(original.text.escaped))
        for entity in original.text.entities {
            text.adopt(entity, shiftedBy: shift)
        }
        let link = original.mediaLink.map { (url: $0.url, start: $0.start + shift, end: $0.end + shift) }
        let tweet = SampleTweet(id: snowflake(date), date: date, author: author, text: text, media: original.media,
                                mediaLink: link, lang: original.lang, metrics: (0, 0, 0, 0))
        tweet.retweetOf = original
        return tweet
    }

    mutating func makeQuote(of quoted: SampleTweet, by author: Int, date: Date) -> SampleTweet {
        var text = SampleText()
        text.append("This brings back memories ☘️ ")
        text.entity(.hashtag("ucd"), text: "#ucd")
        text.append(" ")
        let permalink = "https://twitter.com/\(users[quoted.author].screenName)/status/\(quoted.id)"
        let link = tco()
        text.entity(.link(url: link, expanded: permalink, display: "twitter.com/\(users[quoted.author].screenName)/…"),
                    text: link)
        let tweet = SampleTweet(id: snowflake(date), date: date, author: author, text: text, media: [],
                                mediaLink: nil, lang: "en", metrics: (1, 25, 2, 0))
        tweet.quoteOf = quoted
        return tweet
    }

    /// Undoes `SampleText`'s escaping, to re-append served text to another tweet.
    static func plain(_ escaped: String) -> String {
        escaped.replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

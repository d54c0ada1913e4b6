import Foundation

struct SampleGenerator {
    typealias JSON = [String: Any]

    var random: SplitMix64
    var users: [SampleUser] = []
    var assets: [SampleAsset] = []
    var assetKeys: Set<String> = []
    var usedNames: Set<String> = []
    var photoSizes: [(width: Int, height: Int)] = []

    static let twitterEpochMillis: UInt64 = 1_288_834_974_657
    static let alphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    static let base64URL = alphanumerics + ["-", "_"]
    static let lowercaseAlphanumerics = Array("abcdefghijklmnopqrstuvwxyz0123456789")

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    /// What one slot of a results page holds.
    enum Slot {
        case photos(Int)
        case video
        case gif
        case retweet
        case quote
    }

    mutating func make() -> SampleResults {
        users = Self.people.map { makeUser($0) }

        // Photo counts per ordinary tweet are fixed so every seed has the same mix; the
        // seed decides the order, authors, texts, names and sizes.
        let v1Counts = Self.counts([0: 14, 1: 8, 2: 3, 3: 2, 4: 1])
        let v2Counts = Self.counts([0: 15, 1: 8, 2: 2, 3: 2, 4: 1])
        photoSizes = makePhotoSizes(count: v1Counts.reduce(0, +) + v2Counts.reduce(0, +) + 2 + 1)

        let end = SampleResults.referenceDate
        // Older tweets the retweet and the quote point at, with media of their own.
        let original = makeTweet(date: end.addingTimeInterval(-9 * 86_400 - 3_600), author: 3, photos: 2)
        let quoted = makeTweet(date: end.addingTimeInterval(-8 * 86_400 - 7_200), author: 10, photos: 1)

        let v1 = makePage(slots: v1Counts.map(Slot.photos) + [.video], special: .retweet, authorOffset: 0,
                          end: end, original: original)
        let v2 = makePage(slots: v2Counts.map(Slot.photos) + [.gif], special: .quote, authorOffset: 6,
                          end: end.addingTimeInterval(-1_800), original: quoted)
        let nextToken = random.string(28, from: Self.lowercaseAlphanumerics)
        markRepost()

        return SampleResults(
            v1Search: encode(v1Page(v1)),
            v2Search: encode(v2Page(v2, nextToken: nextToken)),
            assets: assets
        )
    }

    /// Makes one photo a repost of another: the same picture at another size (same seed,
    /// same shape), so the sample has near-identical images in two posts for `dupes`
    /// and the viewer's "Also posted in" to find. Their bytes differ, as a repost's do.
    mutating func markRepost() {
        let photos = assets.indices.filter { assets[$0].kind == .photo }
        for (n, first) in photos.enumerated() {
            // A landscape (even seed): its hash is steadier under scaling than a fractal's edge.
            let a = assets[first]
            guard a.seed % 2 == 0, let later = photos[(n + 1)...].last(where: { i in
                let b = assets[i]
                return b.width < a.width && b.width * a.height == a.width * b.height
            }) else { continue }
            let b = assets[later]
            assets[later] = SampleAsset(key: b.key, kind: b.kind, width: b.width, height: b.height, seed: a.seed,
                                        repostOf: [a.width, a.height])
            return
        }
    }

    /// One page: the slots shuffled, `special` (the retweet or quote of `original`)
    /// placed sixth, dated newest first with snowflake ids to match.
    mutating func makePage(
        slots: [Slot], special: Slot, authorOffset: Int, end: Date, original: SampleTweet
    ) -> [SampleTweet] {
        var slots = slots
        random.shuffle(&slots)
        slots.insert(special, at: min(5, slots.count))
        let dates = spreadDates(count: slots.count, before: end)
        return zip(slots, dates).enumerated().map { index, pair in
            let (slot, date) = pair
            // Every user appears early on; later authors are random, so avatars repeat.
            var author = index < users.count ? (index + authorOffset) % users.count : random.below(users.count)
            switch slot {
            case .photos(let count):
                return makeTweet(date: date, author: author, photos: count)
            case .video:
                return makeTweet(date: date, author: author, photos: 0, video: true)
            case .gif:
                return makeTweet(date: date, author: author, photos: 0, gif: true)
            case .retweet:
                if author == original.author { author = (author + 1) % users.count }
                return makeRetweet(of: original, by: author, date: date)
            case .quote:
                if author == original.author { author = (author + 1) % users.count }
                return makeQuote(of: original, by: author, date: date)
            }
        }
    }
}

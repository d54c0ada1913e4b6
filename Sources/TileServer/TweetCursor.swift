import Foundation
import Pipeline

/// Where the next page of `/api/tweets` starts: the sort key of the last tweet sent.
///
/// A key rather than an offset, so a run that adds tweets while someone scrolls
/// neither repeats nor skips any of the ones already in the order: the next page is
/// every matching tweet that sorts after this one. Opaque to the page (base64url of
/// a small JSON object) and checked like any client text: bounded, and a cursor that
/// does not decode is a 400, not an empty page.
struct TweetCursor: Codable, Equatable {
    /// Seconds since 1970 of the last tweet's `created_at`; nil when it had none.
    var t: Double?
    var id: String

    init(after tweet: ManifestTweet) {
        t = tweet.createdAt?.timeIntervalSince1970
        id = tweet.id
    }

    var key: (createdAt: Date?, id: String) { (t.map(Date.init(timeIntervalSince1970:)), id) }

    var text: String {
        Base64URL.encode((try? JSONEncoder().encode(self)) ?? Data())
    }

    init(text: String) throws(RouteError) {
        guard !text.isEmpty, text.utf8.count <= 1024 else { throw .badRequest("bad cursor") }
        guard let data = Base64URL.decode(text),
              let decoded = try? JSONDecoder().decode(TweetCursor.self, from: data),
              decoded.t.map({ $0.isFinite }) ?? true
        else { throw .badRequest("bad cursor") }
        self = decoded
    }

    /// The page of `tweets` (in catalog order) that starts after `cursor`.
    static func page(_ tweets: [ManifestTweet], after cursor: TweetCursor?, limit: Int) -> (tweets: [ManifestTweet], next: TweetCursor?) {
        var start = 0
        if let cursor {
            // Binary search: the catalog order is total, so "sorts after the cursor" is a suffix.
            var low = 0, high = tweets.count
            while low < high {
                let middle = (low + high) / 2
                let key = (tweets[middle].createdAt, tweets[middle].id)
                if ManifestCatalog.comesBefore(cursor.key, key) { high = middle } else { low = middle + 1 }
            }
            start = low
        }
        let end = min(tweets.count, start + limit)
        let page = Array(tweets[start..<end])
        return (page, end < tweets.count ? page.last.map(TweetCursor.init(after:)) : nil)
    }
}

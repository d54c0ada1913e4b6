import Catalog
import Foundation
import CacheCore

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

    var key: PostKey { PostKey(createdAt: t.map(Date.init(timeIntervalSince1970:)), id: id) }

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
}

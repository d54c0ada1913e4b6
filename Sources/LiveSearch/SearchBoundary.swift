import Foundation
import TweetModel

/// What a collection already holds of a search: its newest post's id (X, Mastodon:
/// ids that grow with time) and time (Bluesky, whose record keys do not order).
///
/// A search repeated for weeks asks the API only for what is newer (X `since_id`,
/// Mastodon `since_id` on timelines, Bluesky `since`), and stops at the first page
/// that reaches a post already held: the quota, paid per post on X, is not spent
/// again on posts the archive has.
public struct SearchBoundary: Sendable, Equatable {
    public var newestID: String?
    public var newestAt: Date?

    public init(newestID: String? = nil, newestAt: Date? = nil) {
        self.newestID = newestID
        self.newestAt = newestAt
    }

    /// The boundary as an X or Mastodon id, when it is one.
    var decimalID: DecimalID? { newestID.flatMap { DecimalID($0) } }

    /// Whether `tweet` is one already held, or older than those: by id where both are
    /// numbers, else strictly older than the newest time (posts of the same second
    /// are asked again rather than missed).
    func holds(_ tweet: Tweet) -> Bool {
        if let mine = decimalID, let theirs = DecimalID(tweet.id) { return theirs <= mine }
        if let newestAt, let created = tweet.createdAt { return created < newestAt }
        return false
    }

    /// `since` as Bluesky reads it (ISO 8601, UTC), and as messages say it.
    public var isoTime: String? {
        newestAt.map { date in
            let f = ISO8601DateFormatter()
            f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return f.string(from: date)
        }
    }
}

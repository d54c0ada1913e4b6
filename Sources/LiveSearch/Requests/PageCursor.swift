import TweetModel

/// Where the next page starts, as the service that served the last one says it.
enum PageCursor: Sendable, Hashable {
    /// An opaque token from the page: X v2's `next_token`, Bluesky's `cursor`.
    case nextToken(String)
    /// X v1.1: `max_id`, the lowest id seen minus one (its `max_id` is inclusive).
    case maxID(DecimalID)
    /// Mastodon: the id of the page's last (oldest) status, as given. Mastodon's ids are
    /// numbers, but GoToSocial's are ULIDs and Pleroma's flake ids: opaque strings that
    /// sort by time, which `max_id` (exclusive) takes as they are.
    case olderThan(String)
}

/// What a network's stream says, in the terms the cache acts on.
public enum StreamEvent: Sendable, Equatable {
    /// A new or edited post, as one JSON document the results parser reads (a v2
    /// `{"data": …, "includes": …}` line, a Mastodon status, a Bluesky post view): it is
    /// saved in the batch as it is, like a search's page.
    case post(id: String, document: [UInt8])
    /// The author deleted this post (Mastodon `delete`, a Bluesky delete commit): it is
    /// forgotten if the cache holds it.
    case deleted(id: String)
    /// Every post of this user is gone (a Bluesky account deleted or taken down).
    case accountGone(userID: String)
    /// Where the stream can be resumed from (Jetstream's `time_us`); saved with the
    /// batch that holds the events before it.
    case cursor(String)
    /// An event that could not be read: said, skipped; the stream goes on.
    case problem(String)
}

/// How one connection to a stream ended, which decides what the follower does next.
public enum StreamEnd: Sendable, Equatable {
    /// The server closed it (a deploy, a proxy's limit): reconnect soon.
    case closed
    /// No byte (not even a heartbeat) within the idle limit: the connection is dead.
    case stalled
    /// It could not connect, or broke off: reconnect with a growing backoff.
    case failed(String)
    /// Too many connections or requests: wait at least this long.
    case rateLimited(retryAfter: Duration?)
    /// It will not work by trying again (the token refused, the stream unknown).
    case refused(LiveSearchError)
    /// Stopped from this side.
    case cancelled
}

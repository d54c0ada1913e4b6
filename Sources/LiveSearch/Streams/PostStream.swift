public import MediaFetch
public import TweetModel

/// One network's stream of posts, as one conformance per network: the X v2 filtered
/// stream (``XFilteredStream``), a Mastodon instance's server-sent events
/// (``MastodonStream``) and Bluesky's Jetstream (``Jetstream``).
///
/// A conformance knows its wire format and its setup; reconnecting, backing off and
/// noticing a dead connection are the ``StreamFollower``'s, the same for all.
public protocol PostStream: Sendable {
    var network: Network { get }
    /// What messages call it: "X filtered stream", "Mastodon #tag on mastodon.social".
    var name: String { get }
    /// Names its saved cursor and its batches' files: the same stream keeps it across runs.
    var key: String { get }
    /// How long silence may last before the connection counts as dead, when the stream
    /// knows better than the follower's default (a stream of a few users' posts is
    /// quiet for hours, and has another way of showing it is alive).
    var idleLimit: Duration? { get }
    /// Everything a connection needs first, asked once per ``StreamFollower/run``:
    /// X reconciles its rules with the watched queries, Mastodon finds its streaming
    /// base, Jetstream resolves handles to DIDs. Throws what no retry will fix.
    mutating func prepare(_ session: StreamSession) async throws(LiveSearchError)
    /// One connection, from `cursor` when the stream can resume: hands each event to
    /// `deliver` as it arrives, and `session.activity` each byte or message (the
    /// follower's idle watch reads it). Returns when the connection ends, or when the
    /// task is cancelled (``StreamEnd/cancelled``).
    func connect(cursor: String?, session: StreamSession, deliver: @escaping @Sendable (StreamEvent) async -> Void)
        async -> StreamEnd
}

extension PostStream {
    public var idleLimit: Duration? { nil }
}

/// What a stream's connections share: the HTTP client for setup calls and
/// event-stream responses, the clock, and the time of the last sign of life.
public struct StreamSession: Sendable {
    public let fetcher: HTTPFetcher
    public let clock: any WallClock
    public let activity: StreamActivity

    public init(fetcher: HTTPFetcher, clock: any WallClock) {
        self.fetcher = fetcher
        self.clock = clock
        activity = StreamActivity(clock: clock)
    }

    /// One setup call, answered or not within its deadline.
    func call(_ request: APIRequest) async -> Result<APIResponse, FetchFailure> {
        var request = request
        request.timeout = request.timeout ?? .seconds(30)
        return await fetcher.perform(request)
    }
}

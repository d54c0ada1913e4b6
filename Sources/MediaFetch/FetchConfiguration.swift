import Foundation

/// Limits and policies for one fetcher. Every limit exists because the bytes come
/// from strangers: a URL in a tweet can point anywhere and answer anything.
public struct FetchConfiguration: Sendable {
    /// Transfers in flight at once across all hosts (what `curl --parallel-max` calls it).
    public var maxConcurrentTransfers: Int = 16
    /// Transfers in flight at once to one host, so one slow CDN does not take every slot.
    public var maxTransfersPerHost: Int = 8
    /// Largest body accepted, in bytes. Enforced while streaming, not only from Content-Length.
    public var maxBytes: Int = 32 << 20
    /// Redirects followed before giving up (loops end here).
    public var maxRedirects: Int = 5
    /// Time allowed to establish a connection (TCP + TLS).
    public var connectTimeout: Duration = .seconds(10)
    /// A transfer slower than `lowSpeedLimit` bytes/s for `lowSpeedTime` is abandoned:
    /// this catches servers that trickle a body forever without tripping a total timeout.
    public var lowSpeedLimit: Int = 1024
    public var lowSpeedTime: Duration = .seconds(20)
    /// Hard cap on one attempt, however fast bytes arrive.
    public var totalTimeout: Duration = .seconds(300)
    /// How many times a transient failure (429, 5xx, reset, timeout) is tried in all.
    public var maxAttempts: Int = 4
    /// Backoff before retry `n` (1-based) is `backoffBase * 2^(n-1)` with jitter, capped at `backoffCap`.
    public var backoffBase: Duration = .milliseconds(250)
    public var backoffCap: Duration = .seconds(8)
    /// A Retry-After longer than this is not waited for: the item fails with the server's
    /// stated delay, so one rate-limited host cannot stall a whole run.
    public var maxRetryAfter: Duration = .seconds(60)
    /// Host → base URL replacements applied before fetching; the caller keeps the original URL.
    public var mirrors: MirrorMap = MirrorMap()
    /// Whom a server's TLS certificate must be signed by; the system's trust store unless
    /// the user names their own CA.
    public var certificateAuthorities: CertificateAuthorities = .system
    /// Sent as `User-Agent`.
    public var userAgent: String = "TweetCache/0.1 (+libcurl)"
    /// Optional shared counter of body bytes received, for progress displays.
    public var byteCounter: ByteCounter? = nil
    /// What retry waits sleep on (`Retry-After`, backoff); tests give a virtual one.
    public var clock: any WallClock = SystemWallClock()

    public init() {}
}

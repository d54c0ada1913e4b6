import Foundation
import MediaFetch
import Synchronization

/// A token bucket per client: each client may start `burst` renders at once and
/// then `rate` a second. Only work that costs (an uncached tile, thumbnail or IIIF
/// rendition, a sign-in attempt) takes a token; answers from memory or disk never
/// do, so a visitor browsing what is cached is never slowed.
///
/// The clients are bounded too: past ``capacity`` buckets the full ones (clients
/// quiet long enough to be back at `burst`) are forgotten, which changes nothing
/// for them.
final class RenderLimiter: Sendable {
    struct Bucket {
        var tokens: Double
        var at: Duration
    }

    let rate: Double
    let burst: Double
    let clock: any WallClock
    let capacity: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    init(rate: Double, burst: Int, clock: any WallClock, capacity: Int = 65_536) {
        self.rate = rate
        self.burst = Double(max(1, burst))
        self.clock = clock
        self.capacity = capacity
    }

    /// Takes one token of `client`'s, or says in how many whole seconds one will be there.
    func take(_ client: String) -> Result<Void, Refused> {
        let now = clock.uptime()
        return buckets.withLock { buckets in
            var bucket = buckets[client] ?? Bucket(tokens: burst, at: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, (now - bucket.at) / .seconds(1)) * rate)
            bucket.at = now
            guard bucket.tokens >= 1 else {
                buckets[client] = bucket
                let wait = rate > 0 ? (1 - bucket.tokens) / rate : 60
                return .failure(Refused(retryAfter: max(1, Int(wait.rounded(.up)))))
            }
            bucket.tokens -= 1
            if buckets[client] == nil, buckets.count >= capacity { forgetQuiet(&buckets, now: now) }
            buckets[client] = bucket
            return .success(())
        }
    }

    private func forgetQuiet(_ buckets: inout [String: Bucket], now: Duration) {
        buckets = buckets.filter { $0.value.tokens + (now - $0.value.at) / .seconds(1) * rate < burst }
        if buckets.count >= capacity { buckets.removeAll() }
    }

    struct Refused: Error {
        var retryAfter: Int
    }
}

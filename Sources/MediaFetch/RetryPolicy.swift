import Foundation

/// When to try again: bounded exponential backoff with jitter, or the server's own
/// `Retry-After` when it gives one (and it is not unreasonably long). The one
/// backoff of every retry loop: media downloads, API searches, bucket requests.
public struct RetryPolicy: Sendable {
    public var base: Duration
    public var cap: Duration
    public var maxRetryAfter: Duration

    public init(base: Duration, cap: Duration, maxRetryAfter: Duration = .seconds(60)) {
        self.base = base
        self.cap = cap
        self.maxRetryAfter = maxRetryAfter
    }

    /// Delay before attempt `attempt + 1`, given the failure of attempt `attempt` (1-based).
    /// `nil` means: do not wait that long, give up with a rate-limit failure.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration?) -> Duration? {
        if let retryAfter {
            return retryAfter <= maxRetryAfter ? retryAfter : nil
        }
        return backoff(afterAttempt: attempt)
    }

    /// The wait before attempt `attempt + 1` when the server named none: doubling
    /// from ``base``, at most ``cap``.
    public func backoff(afterAttempt attempt: Int) -> Duration {
        let exponent = min(max(attempt - 1, 0), 20)
        let raw = base * (1 << exponent)
        let capped = raw < cap ? raw : cap
        // Full jitter between half and all of the delay spreads retries of many
        // transfers that failed together (a 503 burst) instead of retrying in lockstep.
        return capped * Double.random(in: 0.5...1.0)
    }

    /// `Retry-After` is either delta-seconds or an HTTP-date (RFC 9110 §10.2.3).
    static func parseRetryAfter(_ value: String, now: Date) -> Duration? {
        let v = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(v), seconds >= 0 { return .seconds(min(seconds, 86_400)) }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = f.date(from: v) else { return nil }
        let delta = max(0, date.timeIntervalSince(now))
        return .milliseconds(Int(min(delta, 86_400) * 1000))
    }
}

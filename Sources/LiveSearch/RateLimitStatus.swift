import Foundation

/// What a response's rate-limit headers (`x-rate-limit-*`, `ratelimit-*`) say about the current window.
///
/// X counts requests per 15-minute window and says in every response how many are left
/// and when the window resets (epoch seconds). Reading them lets a search wait for the
/// reset instead of spending a request to learn it is over the limit.
struct RateLimitStatus: Sendable, Equatable {
    var limit: Int?
    var remaining: Int?
    var reset: Date?

    init(limit: Int? = nil, remaining: Int? = nil, reset: Date? = nil) {
        self.limit = limit
        self.remaining = remaining
        self.reset = reset
    }

    /// Reads lowercased response headers. Values that are not plain numbers are ignored,
    /// and a reset is bounded to a day ahead so a bad header cannot park a search.
    init(headers: [String: String], now: Date = Date()) {
        func number(_ name: String) -> Int? {
            guard let text = headers[name]?.trimmingCharacters(in: .whitespaces), text.utf8.count <= 18 else { return nil }
            return Int(text).flatMap { $0 >= 0 ? $0 : nil }
        }
        // X sends `x-rate-limit-*`, Mastodon `x-ratelimit-*` (its reset an ISO 8601 time),
        // Bluesky the IETF draft's `ratelimit-*`.
        limit = number("x-rate-limit-limit") ?? number("x-ratelimit-limit") ?? number("ratelimit-limit")
        remaining = number("x-rate-limit-remaining") ?? number("x-ratelimit-remaining") ?? number("ratelimit-remaining")
        if let epoch = number("x-rate-limit-reset") ?? number("ratelimit-reset") {
            reset = min(Date(timeIntervalSince1970: TimeInterval(epoch)), now.addingTimeInterval(86_400))
        } else if let text = headers["x-ratelimit-reset"] ?? headers["x-rate-limit-reset"], let date = Self.isoDate(text) {
            reset = min(date, now.addingTimeInterval(86_400))
        } else if let seconds = number("retry-after") {
            reset = now.addingTimeInterval(TimeInterval(min(seconds, 86_400)))
        }
    }

    /// `2026-11-24T22:20:00.082327Z` (Mastodon writes six fractional digits), with any
    /// number of them or none; nil otherwise. Whole seconds are enough for a wait.
    static func isoDate(_ text: String) -> Date? {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.utf8.count <= 40 else { return nil }
        if let dot = trimmed.firstIndex(of: ".") {
            let digits = trimmed[trimmed.index(after: dot)...].prefix { $0.isASCII && $0.isNumber }
            trimmed.removeSubrange(dot..<digits.endIndex)
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: trimmed)
    }

    /// When the window is used up: the time to wait for before the next request.
    var exhaustedUntil: Date? { remaining == 0 ? reset : nil }
}

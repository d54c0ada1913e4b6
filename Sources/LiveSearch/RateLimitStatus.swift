import Foundation

/// What a response's `x-rate-limit-*` headers say about the current window.
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
        limit = number("x-rate-limit-limit")
        remaining = number("x-rate-limit-remaining")
        if let epoch = number("x-rate-limit-reset") {
            reset = min(Date(timeIntervalSince1970: TimeInterval(epoch)), now.addingTimeInterval(86_400))
        } else if let seconds = number("retry-after") {
            reset = now.addingTimeInterval(TimeInterval(min(seconds, 86_400)))
        }
    }

    /// When the window is used up: the time to wait for before the next request.
    var exhaustedUntil: Date? { remaining == 0 ? reset : nil }
}

import Foundation
import HTTPTypes

/// Which response headers count a service's rate limit.
///
/// Every service says in each response how many requests are left in the window and
/// when it resets, under its own names: X `x-rate-limit-*` (reset in epoch seconds),
/// Mastodon `x-ratelimit-*` (reset an ISO 8601 time), Bluesky the IETF draft's
/// `ratelimit-*` (epoch seconds).
struct RateLimitHeaders: Sendable, Hashable {
    /// The names' common start, lowercased: `x-rate-limit-`.
    let prefix: String

    static let x = RateLimitHeaders(prefix: "x-rate-limit-")
    static let mastodon = RateLimitHeaders(prefix: "x-ratelimit-")
    static let bluesky = RateLimitHeaders(prefix: "ratelimit-")
}

/// What a response's rate-limit headers say about the current window.
///
/// Reading them lets a search wait for the reset instead of spending a request to
/// learn it is over the limit.
struct RateLimitStatus: Sendable, Equatable {
    var limit: Int?
    var remaining: Int?
    var reset: Date?

    /// Reads response headers under `names`' prefix, and `retry-after`.
    /// Values that are not plain numbers (or, for a reset, a time) are ignored, and a
    /// reset is bounded to a day ahead so a bad header cannot park a search.
    init(headers: HTTPFields, names: RateLimitHeaders, now: Date = Date()) {
        func number(_ name: String) -> Int? {
            guard let field = HTTPField.Name(name), let text = headers[values: field].last?.trimmingCharacters(in: .whitespaces), text.utf8.count <= 18 else { return nil }
            return Int(text).flatMap { $0 >= 0 ? $0 : nil }
        }
        limit = number(names.prefix + "limit")
        remaining = number(names.prefix + "remaining")
        // A reset is epoch seconds or an ISO 8601 time, whichever the text is.
        if let epoch = number(names.prefix + "reset") {
            reset = min(Date(timeIntervalSince1970: TimeInterval(epoch)), now.addingTimeInterval(86_400))
        } else if let text = HTTPField.Name(names.prefix + "reset").flatMap({ headers[values: $0].last }), let date = Self.isoDate(text) {
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

import Foundation

/// What a search got, and why it stopped.
///
/// A search that stops early still returns every page it saved: those pages are real
/// results, worth caching, and the reason says what to do for the rest.
public struct SearchOutcome: Sendable {
    public var pages: [SavedPage]
    /// Results over all pages.
    public var tweets: Int
    /// HTTP requests made, retries included.
    public var requests: Int
    public var stop: StopReason
    /// Whether the pages reach down to what the collection held (or it held nothing):
    /// only then may a later search start from their newest post. A search cut short
    /// (by its count, a rate limit, a failure) above the boundary leaves a gap, which
    /// the next search pages again.
    public var reachedHeld: Bool
}

/// Why a search stopped asking for pages.
public enum StopReason: Sendable, Equatable, CustomStringConvertible {
    /// `--count` results arrived.
    case countReached
    /// The API has no more results for the query.
    case endOfResults
    /// A page reached posts the collection already holds.
    case reachedHeld
    /// Rate limited until `resetAt` (nil: the server did not say), which is further away
    /// than the search was allowed to wait.
    case rateLimited(resetAt: Date?)
    /// A page was not results; it was saved and reported, and paging cannot go past it.
    case malformedPage(number: Int, reason: String)
    case failed(LiveSearchError)

    /// Whether the search got everything it asked for.
    public var isComplete: Bool { self == .countReached || self == .endOfResults || self == .reachedHeld }

    public var description: String {
        switch self {
        case .countReached: "the requested count was reached"
        case .endOfResults: "no more results"
        case .reachedHeld: "reached the posts already held"
        case let .rateLimited(reset):
            if let reset {
                "the rate limit resets at \(LocalTime.describe(reset)), later than the longest wait allowed; "
                    + "run the search again after that"
            } else {
                "rate limited and the server did not say until when; run the search again in 15 minutes"
            }
        case let .malformedPage(number, reason): "page \(number) was not a results page (\(reason))"
        case let .failed(error): error.description
        }
    }
}

/// Times as a user at this machine reads them.
enum LocalTime {
    static func describe(_ date: Date, now: Date = Date()) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = .current
        let sameDay = Calendar.current.isDate(date, inSameDayAs: now)
        f.dateFormat = (sameDay ? "" : "yyyy-MM-dd ") + "HH:mm:ss zzz"
        return f.string(from: date)
    }
}

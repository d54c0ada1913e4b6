import Foundation

/// What a running search reports, for a progress display.
public enum SearchEvent: Sendable {
    /// A page arrived and was saved (check ``SavedPage/problem`` for a malformed one).
    case pageSaved(SavedPage)
    /// A request failed in a way worth retrying, and will be retried after `delay`.
    case retrying(page: Int, reason: String, attempt: Int, of: Int, delay: Duration)
    /// The search waits for the rate-limit window to reset before going on.
    case waitStarted(until: Date, cause: WaitCause)
    /// About once a second while waiting: the time still to wait.
    case waitTick(remaining: Duration)
    case waitEnded

    public enum WaitCause: Sendable, Equatable {
        /// The server answered 429.
        case tooManyRequests
        /// The last response said no requests are left in this window.
        case windowUsedUp
    }
}

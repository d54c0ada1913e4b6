import Foundation

/// Time as code that waits on the world sees it: the date now (rate-limit resets
/// are dates the server gives), time that only moves forward (for deadlines and
/// intervals), and a way to wait.
///
/// Production uses ``SystemWallClock``; tests give a clock whose `sleep` moves
/// its own time forward at once, so a search that waits out a 15-minute window
/// runs in milliseconds and a test asserts on the wait instead of sleeping for it.
public protocol WallClock: Sendable {
    /// The date: for what is shown, stored or compared with another machine's dates.
    func now() -> Date
    /// Time since the clock's own start, which only moves forward: a change of the
    /// system's date (NTP stepping it, an operator setting it) does not move it. Every
    /// deadline and interval is measured on it, so that such a change neither ends a
    /// request's time limit at once nor hides a stalled stream for the hour it went back.
    func uptime() -> Duration
    /// Waits `duration` of ``uptime()``.
    func sleep(for duration: Duration) async throws
}

/// The real clock: `Date()`, `ContinuousClock` (which `Task.sleep` waits on) and `Task.sleep`.
public struct SystemWallClock: WallClock {
    private static let start = ContinuousClock.now

    public init() {}
    public func now() -> Date { Date() }
    public func uptime() -> Duration { ContinuousClock.now - Self.start }
    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}

import Foundation

/// Time as code that waits on the world sees it: the date now (rate-limit resets
/// are dates the server gives) and a way to wait.
///
/// Production uses ``SystemWallClock``; tests give a clock whose `sleep` moves
/// its own time forward at once, so a search that waits out a 15-minute window
/// runs in milliseconds and a test asserts on the wait instead of sleeping for it.
public protocol WallClock: Sendable {
    func now() -> Date
    func sleep(for duration: Duration) async throws
}

/// The real clock: `Date()` and `Task.sleep`.
public struct SystemWallClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}

import Foundation
import MediaFetch
import Synchronization

/// A ``WallClock`` for tests: time stands still until someone sleeps (unless it is
/// made to move at each reading), and a sleep moves it forward by exactly that much, at once. Share one between a client and
/// the fake server it talks to, and both see the same time.
public final class VirtualClock: WallClock {
    private let start: Date
    /// How far time has moved: the date is `start` plus this, and it is the uptime.
    private let moved = Mutex<Duration>(.zero)
    private let slept = Mutex<Duration>(.zero)
    private let step: Duration

    /// `eachReading`: how far time moves on after each look at it (the date or the
    /// uptime; zero: it stands still). Whatever someone times on such a clock has taken
    /// at least that long, on any machine, however its threads are scheduled.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000), eachReading: Duration = .zero) {
        self.start = start
        step = eachReading
    }

    public func now() -> Date { start.addingTimeInterval(read() / .seconds(1)) }

    public func uptime() -> Duration { read() }

    private func read() -> Duration {
        moved.withLock { moved in
            defer { moved += step }
            return moved
        }
    }

    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        moved.withLock { $0 += max(duration, .zero) }
        slept.withLock { $0 += max(duration, .zero) }
        await Task.yield()
    }

    /// Everything slept so far.
    public var totalSlept: Duration { slept.withLock { $0 } }
}

import Foundation
import MediaFetch
import Synchronization

/// A ``WallClock`` for tests: time stands still until someone sleeps (unless it is
/// made to move at each reading), and a sleep moves it forward by exactly that much, at once. Share one between a client and
/// the fake server it talks to, and both see the same time.
public final class VirtualClock: WallClock {
    private let current: Mutex<Date>
    private let slept = Mutex<Duration>(.zero)
    private let step: TimeInterval

    /// `eachReading`: how far time moves on after each look at it (zero: it stands
    /// still). Whatever someone times on such a clock has taken at least that long, on
    /// any machine, however its threads are scheduled.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000), eachReading: Duration = .zero) {
        current = Mutex(start)
        step = eachReading / .seconds(1)
    }

    public func now() -> Date {
        current.withLock { date in
            defer { date = date.addingTimeInterval(step) }
            return date
        }
    }

    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        current.withLock { $0 = $0.addingTimeInterval(max(0, seconds)) }
        slept.withLock { $0 += max(duration, .zero) }
        await Task.yield()
    }

    /// Everything slept so far.
    public var totalSlept: Duration { slept.withLock { $0 } }
}

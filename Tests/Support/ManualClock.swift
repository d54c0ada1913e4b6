import Foundation
import MediaFetch
import Synchronization

/// A ``WallClock`` that moves only when the test says: a sleep waits until
/// ``advance(by:)`` carries the time past its end. For code whose waits race real
/// work (an idle watchdog beside a live connection), where ``VirtualClock``'s
/// instant sleeps would fire at once.
///
/// Its date can also be set apart from its uptime (``stepDate(by:)``, `dateEachReading`),
/// as NTP or an operator sets a machine's: sleeps and deadlines must not notice.
public final class ManualClock: WallClock {
    private struct Sleeper {
        var until: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }
    private let state: Mutex<(now: Date, uptime: Duration, sleepers: [UUID: Sleeper])>
    private let dateStep: TimeInterval

    /// `dateEachReading`: how far the date (only) jumps after each reading of it.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000), dateEachReading: Duration = .zero) {
        state = Mutex((start, .zero, [:]))
        dateStep = dateEachReading / .seconds(1)
    }

    public func now() -> Date {
        state.withLock { s in
            defer { s.now = s.now.addingTimeInterval(dateStep) }
            return s.now
        }
    }

    public func uptime() -> Duration { state.withLock { $0.uptime } }

    /// Sets the date forward or back by `duration`; the uptime and every sleep stay as they are.
    public func stepDate(by duration: Duration) {
        state.withLock { $0.now = $0.now.addingTimeInterval(duration / .seconds(1)) }
    }

    /// How many sleeps are waiting: a test advances once the code is asleep.
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    public func sleep(for duration: Duration) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { s -> Bool in
                    let until = s.uptime + duration
                    if until <= s.uptime || Task.isCancelled { return true }
                    s.sleepers[id] = Sleeper(until: until, continuation: c)
                    return false
                }
                if ready {
                    if Task.isCancelled { c.resume(throwing: CancellationError()) } else { c.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time (the date and the uptime) forward and wakes every sleep that has ended.
    public func advance(by duration: Duration) {
        let woken = state.withLock { s -> [Sleeper] in
            s.now = s.now.addingTimeInterval(duration / .seconds(1))
            s.uptime += duration
            let done = s.sleepers.filter { $0.value.until <= s.uptime }
            for key in done.keys { s.sleepers[key] = nil }
            return Array(done.values)
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }
}

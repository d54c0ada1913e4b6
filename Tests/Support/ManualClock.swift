import Foundation
import MediaFetch
import Synchronization

/// A ``WallClock`` that moves only when the test says: a sleep waits until
/// ``advance(by:)`` carries the time past its end. For code whose waits race real
/// work (an idle watchdog beside a live connection), where ``VirtualClock``'s
/// instant sleeps would fire at once.
public final class ManualClock: WallClock {
    private struct Sleeper {
        var until: Date
        var continuation: CheckedContinuation<Void, any Error>
    }
    private let state: Mutex<(now: Date, sleepers: [UUID: Sleeper])>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { state = Mutex((start, [:])) }

    public func now() -> Date { state.withLock { $0.now } }

    /// How many sleeps are waiting: a test advances once the code is asleep.
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    public func sleep(for duration: Duration) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { s -> Bool in
                    let until = s.now.addingTimeInterval(Double(duration.components.seconds)
                        + Double(duration.components.attoseconds) / 1e18)
                    if until <= s.now || Task.isCancelled { return true }
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

    /// Moves time forward and wakes every sleep that has ended.
    public func advance(by duration: Duration) {
        let woken = state.withLock { s -> [Sleeper] in
            s.now = s.now.addingTimeInterval(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
            let done = s.sleepers.filter { $0.value.until <= s.now }
            for key in done.keys { s.sleepers[key] = nil }
            return Array(done.values)
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }
}

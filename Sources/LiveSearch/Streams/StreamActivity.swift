import MediaFetch
import Foundation
import Synchronization

/// When a stream last showed a sign of life (a byte, a heartbeat, a message).
public final class StreamActivity: Sendable {
    private let clock: any WallClock
    private let last: Mutex<Duration>

    init(clock: any WallClock) {
        self.clock = clock
        last = Mutex(clock.uptime())
    }

    /// Something arrived.
    public func mark() {
        let now = clock.uptime()
        last.withLock { $0 = now }
    }

    /// Runs `body` (one connection) until it ends, or until `limit` passes with no
    /// ``mark()``: then it is cancelled and the connection counts as ``StreamEnd/stalled``.
    /// The wait is on the session's clock (its uptime: a change of the system's date
    /// neither stalls a live connection nor hides a dead one), so a test moves time instead of waiting.
    func limitingIdleTime(to limit: Duration, _ body: @escaping @Sendable () async -> StreamEnd) async -> StreamEnd {
        mark()
        return await withTaskGroup(of: StreamEnd?.self) { group in
            group.addTask { await body() }
            group.addTask { [clock] in
                while !Task.isCancelled {
                    let left = limit - (clock.uptime() - self.last.withLock { $0 })
                    if left <= .zero { return .stalled }
                    do { try await clock.sleep(for: left) } catch { return nil }
                }
                return nil
            }
            var ending: StreamEnd = .cancelled
            for await result in group {
                guard let result else { continue }
                ending = result
                group.cancelAll()
                break
            }
            group.cancelAll()
            return ending
        }
    }
}

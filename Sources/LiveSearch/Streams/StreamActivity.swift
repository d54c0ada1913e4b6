import MediaFetch
import Foundation
import Synchronization

/// When a stream last showed a sign of life (a byte, a heartbeat, a message).
public final class StreamActivity: Sendable {
    private let clock: any WallClock
    private let last: Mutex<Date>

    init(clock: any WallClock) {
        self.clock = clock
        last = Mutex(clock.now())
    }

    /// Something arrived.
    public func mark() {
        let now = clock.now()
        last.withLock { $0 = now }
    }

    /// Runs `body` (one connection) until it ends, or until `limit` passes with no
    /// ``mark()``: then it is cancelled and the connection counts as ``StreamEnd/stalled``.
    /// The wait is on the session's clock, so a test moves time instead of waiting.
    func limitingIdleTime(to limit: Duration, _ body: @escaping @Sendable () async -> StreamEnd) async -> StreamEnd {
        mark()
        return await withTaskGroup(of: StreamEnd?.self) { group in
            group.addTask { await body() }
            group.addTask { [clock] in
                while !Task.isCancelled {
                    let idle = clock.now().timeIntervalSince(self.last.withLock { $0 })
                    let left = limit - .milliseconds(Int64((idle * 1000).rounded()))
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

import Foundation
import Synchronization

/// Whether the bucket is answering, as a tile server needs to know it: a store
/// that hangs must not hang every request that touches it.
///
/// After ``failureThreshold`` requests in a row fail for want of an answer (or
/// with 5xx), the store is marked down: requests fail at once with
/// ``StoreError/down(since:)`` instead of each waiting out its deadline, and a
/// probe (one small listing, ``probeTimeout`` at most) runs every
/// ``probeInterval`` until one succeeds. Every change of state is reported once
/// (`onChange`), for the log line, the metric and `/healthz`.
public final class StoreHealth: Sendable {
    public enum State: Sendable, Equatable {
        case up
        case down(since: Date, reason: String)
    }

    public let failureThreshold: Int
    public let probeInterval: Duration
    public let probeTimeout: Duration
    private let now: @Sendable () -> Date

    private struct Status {
        var state: State = .up
        var failures = 0
        var probing = false
    }
    private let status = Mutex(Status())
    private let listeners = Mutex<[@Sendable (State) -> Void]>([])

    public init(failureThreshold: Int = 3, probeInterval: Duration = .seconds(1), probeTimeout: Duration = .seconds(1),
                now: @escaping @Sendable () -> Date = Date.init) {
        self.failureThreshold = max(1, failureThreshold)
        self.probeInterval = probeInterval
        self.probeTimeout = probeTimeout
        self.now = now
    }

    public var state: State { status.withLock { $0.state } }

    /// Called on every change of state (down, then up again), once per change.
    public func onChange(_ listener: @escaping @Sendable (State) -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    /// Throws ``StoreError/down(since:)`` while the store is down.
    func admit() throws(StoreError) {
        if case let .down(since, _) = state { throw .down(since: Self.stamp(since)) }
    }

    func succeeded() {
        let changed = status.withLock { status -> Bool in
            status.failures = 0
            guard status.state != .up else { return false }
            status.state = .up
            return true
        }
        if changed { announce(.up) }
    }

    /// Records a request that got no usable answer; true when this one marked the
    /// store down and the caller should start probing.
    func failed(_ reason: String) -> Bool {
        let current = now()
        let (changed, startProbe) = status.withLock { status -> (State?, Bool) in
            status.failures += 1
            guard status.state == .up, status.failures >= failureThreshold else { return (nil, false) }
            status.state = .down(since: current, reason: reason)
            let start = !status.probing
            status.probing = true
            return (status.state, start)
        }
        if let changed { announce(changed) }
        return startProbe
    }

    /// Runs `probe` every ``probeInterval`` on `clock` until the store answers.
    func probeUntilUp(sleep: @escaping @Sendable (Duration) async throws -> Void,
                      probe: @escaping @Sendable () async -> Bool) {
        Task.detached { [self] in
            while true {
                // Decided under the lock, so a store marked down again just as this
                // loop ends is never left without a probe.
                let down = status.withLock { status -> Bool in
                    if case .down = status.state { return true }
                    status.probing = false
                    return false
                }
                guard down else { return }
                do { try await sleep(probeInterval) } catch {
                    status.withLock { $0.probing = false }
                    return
                }
                if await probe() { succeeded() }
            }
        }
    }

    private func announce(_ state: State) {
        for listener in listeners.withLock({ $0 }) { listener(state) }
    }

    /// Every request is refused with this while the store is down: a format
    /// style, not a formatter object made per request.
    static func stamp(_ date: Date) -> String { date.formatted(.iso8601) }
}

/// How long a bucket request may take in all, retries included: the rest of the
/// deadline of what asked for it (a tile server's request), set for a task and
/// its children with `S3Deadline.$current.withValue(…)`.
public enum S3Deadline {
    @TaskLocal public static var current: ContinuousClock.Instant?
}

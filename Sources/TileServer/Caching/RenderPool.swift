import Dispatch
import Synchronization

/// Where decoding, resampling and encoding run: off Swift's cooperative pool and
/// off the event loops, at most `width` jobs at once.
///
/// CPU-bound work on the cooperative pool would starve the tasks that answer
/// cached requests (the common case); a bounded pool of its own keeps cached
/// tiles fast while cold ones are being made.
///
/// The backlog is bounded too: past `maxQueued` waiting jobs a request gets 503
/// at once instead of queueing work (and the memory it holds) without limit.
final class RenderPool: Sendable {
    private let queue = DispatchQueue(label: "tweetcache.render", qos: .userInitiated, attributes: .concurrent)
    private let slots: DispatchSemaphore
    private let queued = Atomic<Int>(0)
    let maxQueued: Int

    init(width: Int, maxQueued: Int? = nil) {
        slots = DispatchSemaphore(value: max(1, width))
        self.maxQueued = maxQueued ?? max(1, width) * 32
    }

    /// Runs `work` when a slot is free, unless by then every client that wanted it
    /// has hung up (``RenderInterest/current``): then it is dropped (``Dropped``), and
    /// its slot goes to the next job, for a client still there.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        guard queued.add(1, ordering: .relaxed).newValue <= maxQueued else {
            queued.subtract(1, ordering: .relaxed)
            throw HTTPFailure.unavailable("too much work queued; try again shortly")
        }
        let interest = RenderInterest.current
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                slots.wait()
                defer {
                    slots.signal()
                    queued.subtract(1, ordering: .relaxed)
                }
                if let interest, !interest.isWanted {
                    dropped.add(1, ordering: .relaxed)
                    continuation.resume(throwing: Dropped())
                    return
                }
                continuation.resume(with: Result { try work() })
            }
        }
    }

    /// Jobs waiting or running (for tests).
    var queuedJobs: Int { queued.load(ordering: .relaxed) }
    /// Jobs dropped because their clients had gone.
    var droppedJobs: Int { dropped.load(ordering: .relaxed) }
    private let dropped = Atomic<Int>(0)

    /// Work nobody waits for any more.
    struct Dropped: Error {}
}

import Dispatch
import Synchronization

/// Threads of the in-process test servers' own, outside Swift's cooperative pool.
///
/// That pool has one thread per core, and the suite runs its tests side by side: a
/// few tests' long synchronous work (decoding, hashing, rendering) holds both threads,
/// and a server's requests, which wait behind it, stall. A headless browser waits for
/// every request it made, so a stalled one held a screenshot for its whole two-minute
/// limit. Serial queues each get a thread whenever they have work, however busy the
/// pool is; jobs go to them in turn, so the server's tasks still run side by side.
public final class ServerThreads: TaskExecutor {
    public static let shared = ServerThreads(count: 4)

    private let queues: [DispatchQueue]
    private let next = Atomic(0)

    public init(count: Int) {
        queues = (0..<count).map { DispatchQueue(label: "tc.test-server.\($0)") }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queue = queues[next.add(1, ordering: .relaxed).oldValue % queues.count]
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

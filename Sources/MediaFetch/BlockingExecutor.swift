import Foundation
import Synchronization

/// Runs blocking work (finishing a batch of downloads: write, flush to disk, link) on
/// dedicated threads.
///
/// Not on the cooperative pool, which has one thread per core and must never block,
/// and not on a GCD queue: on Linux libdispatch does not grow its pool when threads
/// block in the kernel, so a batch waiting on the disk would hold a core's worth of
/// the pool. Each ``FetchBatch`` uses at most two of these threads for publishing at
/// once (plus short jobs for failed attempts), so a few fetchers in one process (the
/// server's live searches, the store's uploads) never queue behind one another.
final class BlockingExecutor: Sendable {
    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let pending = DispatchSemaphore(value: 0)

    /// Shared by every fetcher in the process; threads start on first use.
    static let shared = BlockingExecutor(threads: 16)

    init(threads: Int) {
        for i in 0..<max(1, threads) {
            let t = Thread { [self] in
                while true {
                    pending.wait()
                    let job = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                    job?()
                }
            }
            t.name = "tweetcache.blocking.\(i)"
            t.stackSize = 512 * 1024
            t.start()
        }
    }

    /// Runs `job` on one of the threads.
    func execute(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.append(job) }
        pending.signal()
    }
}

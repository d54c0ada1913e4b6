import Foundation
import Synchronization

/// Runs blocking work (publishing a blob: fsync, link, fsync) on dedicated threads.
///
/// Not on the cooperative pool, which has one thread per core and must never block,
/// and not on a GCD queue: on Linux libdispatch does not grow its pool when threads
/// block in the kernel, so with two cores only two fsyncs would be in flight and a
/// run's publishing would serialise behind the disk. These threads mostly wait on
/// the disk, so there can be many more of them than cores; fsyncs issued together
/// also share journal commits.
final class BlockingExecutor: Sendable {
    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let pending = DispatchSemaphore(value: 0)

    /// Shared by every fetcher in the process; threads start on first use.
    static let shared = BlockingExecutor(threads: 48)

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

    /// Runs `work` on one of the threads and returns its result to the calling task.
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { cont in
            jobs.withLock { $0.append { cont.resume(returning: work()) } }
            pending.signal()
        }
    }
}

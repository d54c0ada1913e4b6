internal import Foundation
internal import Synchronization

/// Directories that gained entries (new blobs, new shards) whose flush to disk
/// was put off, so a caller that publishes many blobs pays for one flush per
/// batch instead of one per blob.
///
/// A blob's bytes are always flushed before its name appears, so a deferred
/// directory flush never exposes a partial blob: what a power cut can lose is
/// the name itself, which the next run re-publishes. Callers flush before they
/// record the blobs anywhere else (the index, a manifest), so nothing durable
/// ever points at a name that could vanish.
public final class PendingDirectories: Sendable {
    private let paths = Mutex(Set<String>())
    /// The oldest ``GroupSync/failureGeneration`` of the pending directories' writes.
    private let since = Mutex<UInt64?>(nil)
    private let flushing = NSLock()
    /// The stores' group flushes, when every pending directory's store has one.
    private let groupFlush = Mutex<GroupFlushes>(.none)

    private enum GroupFlushes {
        case none
        case one(GroupSync)
        /// Directories of several stores, or of one without group flushes.
        case mixed
    }

    public init() {}

    func insert(_ path: String, flushedWith group: GroupSync? = nil, since generation: UInt64 = 0) {
        // The generation first: a flush that takes the path also sees it.
        since.withLock { $0 = min($0 ?? generation, generation) }
        _ = paths.withLock { $0.insert(path) }
        groupFlush.withLock { current in
            switch current {
            case .none: current = group.map { .one($0) } ?? .mixed
            case let .one(g): if group !== g { current = .mixed }
            case .mixed: break
            }
        }
    }

    /// Flushes every pending directory, many at once.
    ///
    /// A directory's flush waits for the file system's journal to commit the running
    /// transaction. Flushed one after another while blobs keep landing, each waits for
    /// a commit of its own: 32 directories took 10-15 ms. Flushed together, they wait on
    /// the same commit, so a batch costs about one.
    public func sync() throws(BlobStoreError) {
        // One flush at a time: a second caller must not return while the first is still
        // flushing directories it took out of the set.
        flushing.lock()
        defer { flushing.unlock() }
        // Read before the paths are taken: an insert in between only makes it older.
        let generation = since.withLock { g -> UInt64 in
            defer { g = nil }
            return g ?? 0
        }
        let batch = paths.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        guard !batch.isEmpty else { return }
        // Where the store can flush its whole file system in a group round, that one
        // flush (often shared with the blobs' own) covers every directory: a run of
        // 10,000 photos otherwise flushed ~10,000 directories, each a trip to the device.
        if case let .one(group) = groupFlush.withLock({ $0 }), group.flushFileSystem(since: generation) { return }
        // Parents (the store's shard list) before their children, for file systems that
        // flush each directory on its own; the children all together.
        let byDepth = Dictionary(grouping: batch, by: { $0.utf8.count })
        var failure: BlobStoreError?
        for depth in byDepth.keys.sorted() {
            if let error = Self.syncAll(byDepth[depth] ?? []) {
                failure = error
                break
            }
        }
        if let failure {
            paths.withLock { $0.formUnion(batch) }
            since.withLock { $0 = min($0 ?? generation, generation) }
            throw failure
        }
    }

    /// The most directories flushed at once (threads that mostly wait on the journal).
    static let parallelism = 16

    /// Flushes `group` on up to ``parallelism`` threads; returns the first error.
    private static func syncAll(_ group: [String]) -> BlobStoreError? {
        if group.count == 1 {
            do { try FileSystem.syncDirectory(group[0]) } catch { return error }
            return nil
        }
        let firstError = Mutex<BlobStoreError?>(nil)
        let next = Atomic<Int>(0)
        let helpers = min(parallelism, group.count) - 1
        let done = DispatchSemaphore(value: 0)
        let work = { @Sendable in
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard i < group.count else { break }
                do throws(BlobStoreError) { try FileSystem.syncDirectory(group[i]) } catch {
                    firstError.withLock { if $0 == nil { $0 = error } }
                }
            }
        }
        for _ in 0..<helpers {
            FlushThreads.shared.run {
                work()
                done.signal()
            }
        }
        work()
        for _ in 0..<helpers { done.wait() }
        return firstError.withLock { $0 }
    }

    public var isEmpty: Bool { paths.withLock { $0.isEmpty } }
}

/// Threads kept for flushing directories: a batch flushes up to 16 at once, a run has
/// hundreds of batches, and starting threads for each cost more than the flushes.
private final class FlushThreads: Sendable {
    static let shared = FlushThreads(count: PendingDirectories.parallelism - 1)

    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let pending = DispatchSemaphore(value: 0)

    init(count: Int) {
        for i in 0..<max(1, count) {
            let t = Thread { [self] in
                while true {
                    pending.wait()
                    let job = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                    job?()
                }
            }
            t.name = "tweetcache.dirsync.\(i)"
            t.stackSize = 128 * 1024
            t.start()
        }
    }

    func run(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.append(job) }
        pending.signal()
    }
}

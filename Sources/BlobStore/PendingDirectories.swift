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

    public init() {}

    func insert(_ path: String) {
        _ = paths.withLock { $0.insert(path) }
    }

    /// Flushes every pending directory. On ext4 and XFS the first flush commits
    /// the journal with all the others' entries, so the rest cost little.
    public func sync() throws(BlobStoreError) {
        let batch = paths.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        do {
            // Parents (the store's shard list) before their children, for file
            // systems that flush each directory on its own.
            for path in batch.sorted(by: { $0.utf8.count < $1.utf8.count }) {
                try FileSystem.syncDirectory(path)
            }
        } catch {
            paths.withLock { $0.formUnion(batch) }
            throw error
        }
    }

    public var isEmpty: Bool { paths.withLock { $0.isEmpty } }
}

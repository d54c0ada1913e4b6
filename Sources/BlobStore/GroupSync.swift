internal import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// Makes finished blob files durable in groups: one flush of the file system for every
/// blob that finished while the previous flush ran (group commit), instead of one
/// `fsync` each.
///
/// The promise is unchanged: a blob's bytes are on disk before its name exists. What
/// changes is the cost of keeping it for many small blobs. Each `fsync` is a round trip
/// to the device; 10,000 photos of 20 KB spent a third of their fetch waiting on them,
/// while `sync -f` after curl writes the same files in one go. Here the first writer
/// to arrive flushes the file system (`syncfs`), and every writer that arrived while
/// that ran is covered by the next one, so the number of flushes follows the disk's
/// speed, not the number of files. A writer alone in its group flushes only its own
/// file (`fsync`), so a single download never flushes other programs' writes. When a
/// group flush fails, each writer in it flushes its own file, so an error is reported
/// for the file it belongs to.
final class GroupSync: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var started: UInt64 = 0
    private var completed: UInt64 = 0
    private var running = false
    private var arrivedForNext = 0
    private var failedRound: UInt64 = 0

    /// Returns once the file's bytes are on disk.
    func sync(_ fd: Int32, path: String) throws(BlobStoreError) {
        condition.lock()
        let round = started + 1
        arrivedForNext += 1
        while completed < round {
            if !running {
                // Lead the round this writer needs; everyone who arrived so far is in it.
                running = true
                started += 1
                let members = arrivedForNext
                arrivedForNext = 0
                condition.unlock()
                let ok: Bool
                if members == 1 || Self.syncfsFunction == nil {
                    // Alone, or no syncfs: this file only; anyone else in the group
                    // sees the round fail and flushes their own.
                    ok = (try? FileSystem.sync(fd, path: path)) != nil && members == 1
                } else {
                    ok = Self.syncFileSystem(of: fd)
                }
                condition.lock()
                running = false
                completed = started
                if !ok { failedRound = completed }
                condition.broadcast()
            } else {
                condition.wait()
            }
        }
        let groupFailed = failedRound == round
        condition.unlock()
        if groupFailed { try FileSystem.sync(fd, path: path) }
    }

    private static func syncFileSystem(of fd: Int32) -> Bool {
        guard let syncfs = syncfsFunction else { return fsync(fd) == 0 }
        while syncfs(fd) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    /// glibc's `syncfs(2)` (Linux 2.6.39+). Its declaration needs `_GNU_SOURCE`, which
    /// Swift's Glibc module does not set, so it is looked up by name; without it a
    /// group flush falls back to flushing the leader's file only, and the others each
    /// flush their own (see ``sync(_:path:)``: a failed group is retried per file).
    private static let syncfsFunction: (@convention(c) (Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
    }()
}

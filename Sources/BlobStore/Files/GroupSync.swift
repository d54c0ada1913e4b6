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
/// speed, not the number of files.
///
/// Where a group flush could hide a failure, files are flushed one by one instead:
/// - A writer alone in its group flushes only its own file (`fsync`), so a single
///   download never flushes other programs' writes, and its error is its own.
/// - `syncfs` reports write-back errors only since Linux 5.8, and only those since the
///   descriptor it is given was opened; it is given one descriptor opened with the
///   store, so no error between two group flushes goes unseen. On older kernels, on
///   file systems not known to honour it (FUSE, network file systems), or without
///   glibc's `syncfs`, every writer flushes its own file.
/// - When a group flush fails, every writer in it (and any later group's) flushes its
///   own file, so an error is reported for the file it belongs to.
final class GroupSync: @unchecked Sendable {
    /// Flushes one file; throws its error.
    typealias FileSync = @Sendable (Int32, String) throws(BlobStoreError) -> Void
    /// Flushes the whole file system; false when it reported an error.
    typealias FileSystemSync = @Sendable () -> Bool

    private let syncFile: FileSync
    /// nil: files are always flushed one by one.
    private let syncFileSystem: FileSystemSync?
    /// The descriptor group flushes go through, closed with this object.
    private let ownedDescriptor: Int32
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var started: UInt64 = 0
    private var completed: UInt64 = 0
    private var running = false
    private var arrivedForNext = 0
    private var lastFailedRound: UInt64 = 0
    private var failedRounds: UInt64 = 0

    /// Group flushes for the file system holding `directory` (the store's `tmp/`), where
    /// they can be trusted; per-file flushes elsewhere.
    convenience init(directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        var fileSystemSync: FileSystemSync?
        if fd >= 0, let syncfs = Self.syncfsFunction, Self.kernelReportsSyncfsErrors,
           Self.fileSystemHonoursSyncfs(fd) {
            // Kept open for the store's life: syncfs reports errors since this descriptor
            // was opened, so every error after the store opened reaches some group flush.
            fileSystemSync = {
                while syncfs(fd) != 0 {
                    if errno != EINTR { return false }
                }
                return true
            }
        } else if fd >= 0 {
            close(fd)
        }
        self.init(syncFile: { (fd, path) throws(BlobStoreError) in try FileSystem.sync(fd, path: path) },
                  syncFileSystem: fileSystemSync, owning: fileSystemSync == nil ? -1 : fd)
    }

    /// For tests: any way of flushing a file and the file system.
    init(syncFile: @escaping FileSync, syncFileSystem: FileSystemSync?, owning descriptor: Int32 = -1) {
        self.syncFile = syncFile
        self.syncFileSystem = syncFileSystem
        self.ownedDescriptor = descriptor
    }

    deinit {
        if ownedDescriptor >= 0 { close(ownedDescriptor) }
    }

    /// Whether group flushes are used at all.
    var groups: Bool { syncFileSystem != nil }

    /// How many group flushes have failed so far. A file written since a value of it
    /// was read is covered by a later group flush only if none failed in between:
    /// `syncfs` reports a write-back error once, to whichever round saw it, and a file
    /// whose pages that round failed to write must then be flushed on its own.
    var failureGeneration: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return failedRounds
    }

    /// Returns once the file's bytes are on disk; throws when they may not be.
    func sync(_ fd: Int32, path: String, since generation: UInt64 = 0) throws(BlobStoreError) {
        if let error = sync([(fd, path)], since: generation)[0] { throw error }
    }

    /// Returns once every file's bytes are on disk, with each file's error (nil when it
    /// is durable), in order. A batch counts as that many writers in its group, so a
    /// batch of several is covered by one group flush even when it is alone.
    /// `generation` is ``failureGeneration`` as read before the files were written.
    func sync(_ files: [(descriptor: Int32, path: String)], since generation: UInt64) -> [BlobStoreError?] {
        func flushEach() -> [BlobStoreError?] {
            files.map { file -> BlobStoreError? in
                do throws(BlobStoreError) { try syncFile(file.descriptor, file.path) } catch { return error }
                return nil
            }
        }
        guard !files.isEmpty else { return [] }
        guard groups else { return flushEach() }
        switch joinRound(weight: files.count, since: generation, alone: { flushEach()[0] }) {
        case let .alone(error): return [error]
        case .covered: return Array(repeating: nil, count: files.count)
        case .groupFailed: return flushEach()
        }
    }

    /// Flushes the whole file system in a group round, shared with the blob flushes
    /// running at the time; true once that reported success. False when it failed or
    /// when group flushes cannot be trusted here: the caller then flushes what it needs
    /// one by one. For directories: after `syncfs` their new entries are on disk too.
    func flushFileSystem(since generation: UInt64) -> Bool {
        guard groups else { return false }
        // Weight 2: never taken for a lone file, so its round flushes the file system.
        if case .covered = joinRound(weight: 2, since: generation, alone: { nil }) { return true }
        return false
    }

    private enum RoundResult {
        /// This caller was the round's only file and flushed it itself.
        case alone(BlobStoreError?)
        /// A group flush that succeeded covered the caller.
        case covered
        /// A group flush at or after the caller's arrival failed.
        case groupFailed
    }

    /// Waits for a group round that started after this call (leading it if none is
    /// running). `weight` is how many files the caller brings; a round of exactly one
    /// file is that caller's own (`alone`) rather than a flush of the file system.
    private func joinRound(weight: Int, since generation: UInt64, alone: () -> BlobStoreError?) -> RoundResult {
        guard let syncFileSystem else { return .groupFailed }
        condition.lock()
        let round = started + 1
        arrivedForNext += weight
        while completed < round {
            if running {
                condition.wait()
                continue
            }
            // Lead the round this caller needs; everyone who arrived so far is in it.
            running = true
            started += 1
            let members = arrivedForNext
            arrivedForNext = 0
            condition.unlock()
            var ownResult: BlobStoreError??
            let groupFlushed: Bool
            if members == 1 {
                let error = alone()
                ownResult = .some(error)
                groupFlushed = error == nil
            } else {
                groupFlushed = syncFileSystem()
            }
            condition.lock()
            running = false
            completed = started
            if !groupFlushed {
                lastFailedRound = completed
                failedRounds += 1
            }
            condition.broadcast()
            if let ownResult {
                condition.unlock()
                return .alone(ownResult)
            }
        }
        // A failed round at or after this caller's may have been the one that covered it;
        // one since its files were written may have taken their write-back error.
        let failed = lastFailedRound >= round || failedRounds > generation
        condition.unlock()
        return failed ? .groupFailed : .covered
    }

    /// glibc's `syncfs(2)`. Its declaration needs `_GNU_SOURCE`, which Swift's Glibc
    /// module does not set, so it is looked up by name.
    private static let syncfsFunction: (@convention(c) (Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
    }()

    /// Linux 5.8 or later: before it, syncfs returned 0 whatever write-back failed.
    private static let kernelReportsSyncfsErrors: Bool = {
        var name = utsname()
        guard uname(&name) == 0 else { return false }
        let release = withUnsafeBytes(of: name.release) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        let parts = release.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        guard parts.count == 2 else { return false }
        return parts[0] > 5 || (parts[0] == 5 && parts[1] >= 8)
    }()

    /// Local file systems whose syncfs writes and waits for everything: ext2/3/4, XFS,
    /// Btrfs, F2FS, tmpfs. Not FUSE (no syncfs before 5.14) nor network file systems.
    private static func fileSystemHonoursSyncfs(_ fd: Int32) -> Bool {
        // fstatfs(2)'s header is not in Swift's Glibc module either. Its struct starts
        // with `f_type` (a word) on every 64-bit Linux; 512 bytes hold the whole struct.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fstatfs") else { return false }
        let fstatfs = unsafeBitCast(symbol, to: (@convention(c) (Int32, UnsafeMutableRawPointer) -> Int32).self)
        let info = UnsafeMutableRawPointer.allocate(byteCount: 512, alignment: 8)
        defer { info.deallocate() }
        guard MemoryLayout<Int>.size == 8, fstatfs(fd, info) == 0 else { return false }
        let type = info.load(as: Int.self) & 0xFFFF_FFFF
        let known: Set<Int> = [0xEF53, 0x5846_5342, 0x9123_683E, 0xF2F5_2010, 0x0102_1994]
        return known.contains(type)
    }
}

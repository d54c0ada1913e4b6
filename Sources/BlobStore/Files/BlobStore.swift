public import Foundation
internal import Hashing
internal import Synchronization
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A content-addressed directory of immutable blobs.
///
/// Every blob is named by the SHA-256 of its bytes, so the same image reached
/// through many URLs (avatars shared across tweets, mirrors, re-runs) is stored
/// once, and a name can always be checked against its content.
///
/// Layout under `root`:
/// - `blobs/sha256/<first 2 hex>/<64 hex>`: the blobs, 256 shard directories
///   at most, so no directory grows past what file systems list quickly;
/// - `tmp/`: files being written. They live on the same file system as the
///   blobs so publishing is a `link(2)`, never a copy;
/// - `index.sqlite`: the ``CacheIndex`` (opened separately).
///
/// A name under `blobs/` only ever appears after its bytes were flushed to
/// disk, so a process killed at any instant leaves either a complete blob or
/// nothing; the next open sweeps what the dead process left in `tmp/`.
///
/// All methods block on file I/O. The type is immutable and safe to share;
/// several processes may use the same root at once.
public final class BlobStore: Sendable {
    /// The cache directory this store manages.
    public let root: URL
    /// Where everything lives under ``root``.
    public let layout: CacheLayout
    let blobsPath: String
    let temporaryPath: String
    /// Whether blobs are written as unnamed files (`O_TMPFILE`) and given their one name
    /// with `linkat`; see ``createBlobFile()``.
    let writesUnnamedFiles: Bool
    /// Flushes streamed blobs to disk in groups (see ``GroupSync``).
    let groupSync: GroupSync

    /// The store of the cache `layout` describes (``Cache`` opens it this way, with
    /// the one layout every part of the cache shares).
    public convenience init(layout: CacheLayout) throws(BlobStoreError) {
        try self.init(layout: layout, allowUnnamedFiles: true)
    }

    /// Opens (creating if needed) the store of `layout`, then removes temporary files
    /// left by dead processes or older than an hour. `allowUnnamedFiles: false` writes
    /// named temporary files even where unnamed ones work, so tests cover the path
    /// other systems take.
    init(layout: CacheLayout, allowUnnamedFiles: Bool) throws(BlobStoreError) {
        let rootPath = layout.root.path
        self.root = layout.root
        self.layout = layout
        self.blobsPath = layout.path(CacheLayout.blobsFolder)
        self.temporaryPath = layout.path(CacheLayout.temporaryFolder)
        for directory in [rootPath, FileSystem.parentPath(of: blobsPath), blobsPath, temporaryPath] {
            try FileSystem.makeDirectoryTree(directory)
        }
        writesUnnamedFiles = allowUnnamedFiles && FileSystem.supportsUnnamedFiles(in: temporaryPath)
        groupSync = GroupSync(directory: temporaryPath)
        removeStaleTemporaryFiles()
    }

    /// Where the index of this store lives by convention, for ``CacheIndex``.
    public var indexURL: URL { layout.indexURL }

    /// Where the blob with this hash lives (whether or not it is stored yet).
    public func path(for hash: BlobHash) -> URL {
        URL(fileURLWithPath: filePath(for: hash), isDirectory: false)
    }

    /// Whether a blob with this hash is published.
    ///
    /// Does not read the bytes; use ``verify(_:)`` to check them.
    public func contains(_ hash: BlobHash) -> Bool {
        FileSystem.regularFileSize(filePath(for: hash)) != nil
    }

    /// Stores bytes already in memory.
    ///
    /// Hashes first, so storing content that is already present costs one
    /// hash and one `stat`, and writes nothing.
    @discardableResult
    public func put(_ bytes: some ContiguousBytes) throws(BlobStoreError) -> StoredBlob {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(BlobStoreError) -> StoredBlob in try put(raw: raw) }
        }
        return try result.get()
    }

    /// Starts a streaming write, for bytes that arrive in pieces (a download).
    ///
    /// To retry after a failure, ``BlobWriter/discard()`` the writer and make
    /// a new one: writers are cheap and never reused.
    ///
    /// With `pending`, the flush of the directories the blob's name goes into is
    /// left to ``PendingDirectories/sync()`` (the blob's bytes are still flushed
    /// before the name appears); see ``PendingDirectories`` for when that is safe.
    public func makeWriter(deferringDirectorySync pending: PendingDirectories? = nil) throws(BlobStoreError) -> BlobWriter {
        let (fd, path) = try createBlobFile()
        return BlobWriter(store: self, descriptor: fd, temporaryPath: path, pendingDirectories: pending)
    }

    /// Reads a whole blob into memory.
    ///
    /// Does not re-hash: the name is trusted here; ``verify(_:)`` checks it.
    public func read(_ hash: BlobHash) throws(BlobStoreError) -> [UInt8] {
        let path = filePath(for: hash)
        let fd = try openBlob(hash, path: path)
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .lastSystemError("inspect", path: path) }
        let expected = max(0, Int(info.st_size))

        var failure: BlobStoreError?
        var bytes = [UInt8](unsafeUninitializedCapacity: expected) { buffer, initialized in
            var filled = 0
            while filled < expected, let base = buffer.baseAddress {
                let free = UnsafeMutableRawBufferPointer(start: base + filled, count: expected - filled)
                do throws(BlobStoreError) {
                    let count = try FileSystem.readSome(fd, into: free, path: path)
                    if count == 0 { break }
                    filled += count
                } catch {
                    failure = error
                    break
                }
            }
            initialized = filled
        }
        if let failure { throw failure }
        // The file may have changed size since fstat (someone rewrote it):
        // return what is there rather than a silently truncated copy.
        let tail = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { tail.deallocate() }
        while true {
            let count = try FileSystem.readSome(fd, into: tail, path: path)
            if count == 0 { break }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: tail[0..<count]))
        }
        return bytes
    }

    /// Publishes a derived file (a pyramid pack) the way blobs are published:
    /// written under `tmp/`, flushed, renamed over `relative` (replacing an
    /// older version), and the folder flushed. A process killed at any instant
    /// leaves the old file or the new one under that name, never half of one;
    /// its temporary file is swept by the next open.
    ///
    /// With `pending`, the folder's flush is left to ``PendingDirectories/sync()``,
    /// which a caller runs once for a batch before recording the files.
    public func publishDerived(
        _ bytes: [UInt8], at relative: String, deferringDirectorySync pending: PendingDirectories? = nil
    ) throws(BlobStoreError) {
        let target = layout.path(relative)
        let folder = FileSystem.parentPath(of: target)
        try FileSystem.makeDirectoryTree(folder)
        let (fd, path) = try createTemporaryFile()
        do {
            defer { close(fd) }
            let result = bytes.withUnsafeBytes { raw in
                Result { () throws(BlobStoreError) in try FileSystem.writeAll(fd, raw, path: path) }
            }
            try result.get()
            try FileSystem.sync(fd, path: path)
        } catch {
            _ = try? FileSystem.unlinkIfPresent(path)
            throw error
        }
        guard rename(path, target) == 0 else {
            let error = BlobStoreError.lastSystemError("publish \(path) as", path: target)
            _ = try? FileSystem.unlinkIfPresent(path)
            throw error
        }
        if let pending { pending.insert(folder) } else { try FileSystem.syncDirectory(folder) }
    }

    // MARK: - Internals shared with BlobWriter

    func filePath(for hash: BlobHash) -> String {
        let hex = hash.hex
        return blobsPath + "/" + hex.prefix(2) + "/" + hex
    }

    func openBlob(_ hash: BlobHash, path: String) throws(BlobStoreError) -> Int32 {
        do {
            return try FileSystem.openFile(path, flags: O_RDONLY, operation: "open blob")
        } catch {
            if error.systemErrorCode == ENOENT { throw .blobNotFound(hash, path: path) }
            throw error
        }
    }

    /// Creates a new empty file in `tmp/` whose name carries this process's
    /// PID, so a later open can tell a dead writer's leftovers from a live one.
    func createTemporaryFile() throws(BlobStoreError) -> (descriptor: Int32, path: String) {
        let pid = getpid()
        var attempt = 0
        while true {
            let nonce = String(UInt64.random(in: .min ... .max), radix: 16)
            let path = "\(temporaryPath)/\(Self.temporaryPrefix)\(pid)-\(nonce)\(Self.temporarySuffix)"
            do {
                let fd = try FileSystem.openFile(
                    path, flags: O_RDWR | O_CREAT | O_EXCL, operation: "create temporary file"
                )
                return (fd, path)
            } catch {
                attempt += 1
                guard error.systemErrorCode == EEXIST, attempt < 8 else { throw error }
            }
        }
    }

    /// Shard folders this store has seen exist: at most 256, and a `mkdir` that fails
    /// with EEXIST still costs a path walk, once per blob published.
    private let knownShards = Mutex(Set<String>())

    /// Makes a shard folder unless it is known to exist; true when this call made it.
    private func makeShard(_ path: String) throws(BlobStoreError) -> Bool {
        if knownShards.withLock({ $0.contains(path) }) { return false }
        let made = try FileSystem.makeDirectory(path)
        knownShards.withLock { _ = $0.insert(path) }
        return made
    }

    private func forgetShard(_ path: String) {
        _ = knownShards.withLock { $0.remove(path) }
    }

    /// Creates the file a blob is written into before it has a name.
    ///
    /// Where the kernel allows, an unnamed file in `tmp/` (`O_TMPFILE`), later linked
    /// under its hash by descriptor. A named temporary file costs two changes to `tmp/`
    /// (create, then unlink once published), each holding that one directory's lock:
    /// with 10,000 small downloads most of the run's CPU went to waiting for it and to
    /// the file system scanning for free inodes. An unnamed file touches no directory
    /// until its final name, and a crash leaves nothing behind to clean up. Returns
    /// nil for the path when the file is unnamed.
    func createBlobFile() throws(BlobStoreError) -> (descriptor: Int32, path: String?) {
        if writesUnnamedFiles, let fd = FileSystem.openUnnamedFile(in: temporaryPath) { return (fd, nil) }
        let (fd, path) = try createTemporaryFile()
        return (fd, path)
    }

    /// The shard folder and final path of a blob, with the folder made (and `blobs/`
    /// flushed when it is new, unless deferring: see ``queueFlush(of:in:)``).
    private func prepareShard(
        for hash: BlobHash, deferring pending: PendingDirectories?
    ) throws(BlobStoreError) -> (shard: String, final: String) {
        let hex = hash.hex
        let shardPath = blobsPath + "/" + hex.prefix(2)
        if try makeShard(shardPath), pending == nil {
            try FileSystem.syncDirectory(blobsPath)
        }
        return (shardPath, shardPath + "/" + hex)
    }

    /// Deferring, queues the flush of both folders a published blob's name depends
    /// on: its shard and `blobs/` (which gained the shard when it was new). Queued
    /// after the name exists, whoever made it (this writer, or another whose own
    /// flush may still be pending): a flush that takes them from the queue is then
    /// sure to cover the name. Queued before it, a flush running in between could
    /// take them too early (or find a shard not made yet) and leave the name unflushed
    /// when the blob is recorded.
    private func queueFlush(of hash: BlobHash, in pending: PendingDirectories?, since generation: UInt64) {
        guard let pending else { return }
        pending.insert(blobsPath, flushedWith: groupSync, since: generation)
        pending.insert(blobsPath + "/" + hash.hex.prefix(2), flushedWith: groupSync, since: generation)
    }

    /// Gives a flushed unnamed file (from ``createBlobFile()``) its content address;
    /// the descriptor must still be open. The same rules as the named form below: an
    /// existing blob of the right size means another writer got there first; one of
    /// the wrong size is replaced, through a temporary name and `rename(2)`.
    func publish(
        unnamed descriptor: Int32, hash: BlobHash, size: Int, deferring pending: PendingDirectories? = nil,
        since generation: UInt64 = 0
    ) throws(BlobStoreError) -> StoredBlob {
        let stored = try name(unnamed: descriptor, hash: hash, size: size, deferring: pending)
        queueFlush(of: hash, in: pending, since: generation)
        return stored
    }

    private func name(
        unnamed descriptor: Int32, hash: BlobHash, size: Int, deferring pending: PendingDirectories?
    ) throws(BlobStoreError) -> StoredBlob {
        let (shardPath, finalPath) = try prepareShard(for: hash, deferring: pending)
        let stored = { (alreadyPresent: Bool) in
            StoredBlob(hash: hash, size: size, path: URL(fileURLWithPath: finalPath, isDirectory: false),
                       alreadyPresent: alreadyPresent)
        }
        var linked = FileSystem.linkUnnamed(descriptor, to: finalPath)
        if linked == ENOENT {
            // The shard folder went away since it was seen (removed by hand): make it again.
            forgetShard(shardPath)
            if try makeShard(shardPath), pending == nil { try FileSystem.syncDirectory(blobsPath) }
            linked = FileSystem.linkUnnamed(descriptor, to: finalPath)
        }
        if linked == 0 {
            if pending == nil { try FileSystem.syncDirectory(shardPath) }
            return stored(false)
        }
        guard linked == EEXIST else {
            throw .io(operation: "publish a new blob as", path: finalPath, code: linked)
        }
        if FileSystem.regularFileSize(finalPath) == size { return stored(true) }
        // The existing file cannot hold what its name promises: replace it.
        let (probe, named) = try createTemporaryFile()
        close(probe)
        try FileSystem.unlinkIfPresent(named)
        let code = FileSystem.linkUnnamed(descriptor, to: named)
        guard code == 0 else { throw .io(operation: "name a new blob", path: named, code: code) }
        guard rename(named, finalPath) == 0 else {
            let error = BlobStoreError.lastSystemError("publish \(named) as", path: finalPath)
            _ = try? FileSystem.unlinkIfPresent(named)
            throw error
        }
        if pending == nil { try FileSystem.syncDirectory(shardPath) }
        return stored(false)
    }

    /// Gives a flushed temporary file its content address.
    ///
    /// `link(2)` rather than `rename(2)`: it never replaces an existing name,
    /// and EEXIST says another writer (maybe another process) already
    /// published the same bytes, which is success. The shard directory is
    /// synced so the new name survives a power cut, not only a crash.
    func publish(
        temporaryPath: String, hash: BlobHash, size: Int, deferring pending: PendingDirectories? = nil,
        since generation: UInt64 = 0
    ) throws(BlobStoreError) -> StoredBlob {
        let stored = try name(temporaryPath: temporaryPath, hash: hash, size: size, deferring: pending)
        queueFlush(of: hash, in: pending, since: generation)
        return stored
    }

    private func name(
        temporaryPath: String, hash: BlobHash, size: Int, deferring pending: PendingDirectories?
    ) throws(BlobStoreError) -> StoredBlob {
        let (shardPath, finalPath) = try prepareShard(for: hash, deferring: pending)
        func syncDirectory(_ path: String) throws(BlobStoreError) {
            if pending == nil { try FileSystem.syncDirectory(path) }
        }
        let stored = { (alreadyPresent: Bool) in
            StoredBlob(
                hash: hash, size: size,
                path: URL(fileURLWithPath: finalPath, isDirectory: false),
                alreadyPresent: alreadyPresent
            )
        }

        var linked = link(temporaryPath, finalPath) == 0
        if !linked, errno == ENOENT, FileSystem.regularFileSize(temporaryPath) != nil {
            // The shard folder went away since it was seen (removed by hand): make it again.
            forgetShard(shardPath)
            if try makeShard(shardPath) { try syncDirectory(blobsPath) }
            linked = link(temporaryPath, finalPath) == 0
        }
        if linked {
            try syncDirectory(shardPath)
            _ = try? FileSystem.unlinkIfPresent(temporaryPath)
            return stored(false)
        }
        let code = errno
        if code == EEXIST, FileSystem.regularFileSize(finalPath) == size {
            _ = try? FileSystem.unlinkIfPresent(temporaryPath)
            return stored(true)
        }
        // Either the existing file is damaged (its size cannot match its
        // name), or the file system has no hard links: rename over it. The
        // replacement holds exactly the bytes the name promises.
        let canRename = code == EEXIST || code == EPERM || code == EOPNOTSUPP || code == EMLINK
        guard canRename else {
            throw .io(operation: "publish \(temporaryPath) as", path: finalPath, code: code)
        }
        guard rename(temporaryPath, finalPath) == 0 else {
            throw .lastSystemError("publish \(temporaryPath) as", path: finalPath)
        }
        try syncDirectory(shardPath)
        return stored(false)
    }

    static let temporaryPrefix = "tc-"
    static let temporarySuffix = ".part"

    private func put(raw: UnsafeRawBufferPointer) throws(BlobStoreError) -> StoredBlob {
        var hasher = SHA256()
        hasher.update(bufferPointer: raw)
        let hash = BlobHash(digest: hasher.finalize())
        let finalPath = filePath(for: hash)
        if FileSystem.regularFileSize(finalPath) == raw.count {
            return StoredBlob(
                hash: hash, size: raw.count,
                path: URL(fileURLWithPath: finalPath, isDirectory: false), alreadyPresent: true
            )
        }
        let (fd, path) = try createTemporaryFile()
        do {
            defer { close(fd) }
            try FileSystem.writeAll(fd, raw, path: path)
            try FileSystem.sync(fd, path: path)
        } catch {
            _ = try? FileSystem.unlinkIfPresent(path)
            throw error
        }
        do {
            return try publish(temporaryPath: path, hash: hash, size: raw.count)
        } catch {
            _ = try? FileSystem.unlinkIfPresent(path)
            throw error
        }
    }
}

internal import Hashing
internal import Synchronization
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Thin wrappers over the POSIX calls the store depends on.
///
/// Foundation hides `fsync`, `link(2)` and `errno`, and crash safety hangs on
/// exactly those, so the store speaks to the kernel directly and turns every
/// failure into a `BlobStoreError` that names the path and the reason. Package-wide:
/// the folder store (`LocalStorage`) writes and hashes through the same calls.
package enum FileSystem {
    /// Permission bits for published blobs and temporary files.
    static let fileMode: mode_t = 0o644
    /// Permission bits for the cache directories.
    static let directoryMode: mode_t = 0o755

    package static func openFile(_ path: String, flags: Int32, operation: String) throws(BlobStoreError) -> Int32 {
        while true {
            let fd = open(path, flags | O_CLOEXEC, fileMode)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            throw .lastSystemError(operation, path: path)
        }
    }

    /// `path` open for reading, only when it is a regular file: never through a
    /// symbolic link, and never waiting on a FIFO or a device someone put there under
    /// the name. The caller closes the descriptor.
    package static func openRegularFile(_ path: String, operation: String) throws(BlobStoreError) -> (fd: Int32, size: Int, inode: UInt64) {
        let fd = try openFile(path, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK, operation: operation)
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .io(operation: "\(operation) (not a regular file)", path: path, code: EINVAL)
        }
        return (fd, Int(info.st_size), UInt64(info.st_ino))
    }

    /// A new file in `directory` with no name (`O_TMPFILE`, Linux 3.11+), or nil where
    /// the kernel or file system has none.
    package static func openUnnamedFile(in directory: String) -> Int32? {
        #if os(Linux)
        while true {
            // O_TMPFILE is a C macro Swift does not import: __O_TMPFILE (020000000 in
            // asm-generic/fcntl.h, which x86-64 and arm64 use) with O_DIRECTORY.
            let fd = open(directory, O_DIRECTORY | 0o20000000 | O_RDWR | O_CLOEXEC, fileMode)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            return nil
        }
        #else
        return nil
        #endif
    }

    /// Names an unnamed file by its descriptor. Returns 0 or the errno.
    ///
    /// `linkat` with `AT_EMPTY_PATH` names the descriptor itself; Linux allows it without
    /// privilege since 6.10 (for a file the caller opened), before that only with
    /// `CAP_DAC_READ_SEARCH`. Elsewhere the same link goes through `/proc/self/fd`,
    /// which costs a walk of procfs per blob (about a third of the link's CPU), so the
    /// first refusal of `AT_EMPTY_PATH` turns it off for the process.
    static func linkUnnamed(_ fd: Int32, to path: String) -> Int32 {
        #if os(Linux)
        if emptyPathLinks.load(ordering: .relaxed) {
            // AT_EMPTY_PATH (0x1000) is behind _GNU_SOURCE, which Swift's Glibc does not set.
            if linkat(fd, "", AT_FDCWD, path, 0x1000) == 0 { return 0 }
            let code = errno
            guard code == ENOENT || code == EPERM else { return code }
            // Refused, or the target's folder is missing: the fallback below tells which.
        }
        if linkat(AT_FDCWD, "/proc/self/fd/\(fd)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0 {
            emptyPathLinks.store(false, ordering: .relaxed)
            return 0
        }
        return errno
        #else
        return ENOTSUP
        #endif
    }

    /// Whether `linkat(AT_EMPTY_PATH)` has not been refused yet in this process.
    private static let emptyPathLinks = Atomic<Bool>(true)

    /// Whether unnamed files can be made in `directory` and then named: tried once,
    /// when a store opens (no `/proc`, an old kernel or a file system without
    /// `O_TMPFILE` or hard links all say no, and named temporary files are used).
    static func supportsUnnamedFiles(in directory: String) -> Bool {
        guard let fd = openUnnamedFile(in: directory) else { return false }
        defer { close(fd) }
        // Named as a writer's temporary file (`tc-<pid>-<nonce>.part`): a process killed
        // between the link and the unlink leaves a file the next open sweeps.
        let probe = directory + "/tc-\(getpid())-probe\(UInt64.random(in: .min ... .max)).part"
        guard linkUnnamed(fd, to: probe) == 0 else { return false }
        unlink(probe)
        return true
    }

    /// Writes every byte, retrying short writes and signal interruptions.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(BlobStoreError) {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = write(fd, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                throw .lastSystemError("write to", path: path)
            }
            if written == 0 {
                throw .io(operation: "write to", path: path, code: EIO)
            }
            remaining -= written
            base += written
        }
    }

    /// `bytes` as the file at `path` (made, or emptied first), not flushed: for files
    /// that are never the only copy, such as a thumbnail made again from its blob or a
    /// bucket's object kept locally, which are checked when read back. Foundation's
    /// `Data.write(to:)` and `FileManager.createFile(atPath:contents:)` flush every
    /// file they write (`fsync`), a wait on the disk such a file must not pay for.
    package static func writeUnflushed(_ bytes: [UInt8], to path: String) throws(BlobStoreError) {
        let fd = try openFile(path, flags: O_WRONLY | O_CREAT | O_TRUNC, operation: "create")
        let written = bytes.withUnsafeBytes { raw in
            Result { () throws(BlobStoreError) in try writeAll(fd, raw, path: path) }
        }
        let closing: BlobStoreError? = close(fd) == 0 ? nil : .lastSystemError("finish writing", path: path)
        try written.get()
        if let closing { throw closing }
    }

    /// Writes every byte at `offset` (`pwrite`: the descriptor's position is not used,
    /// so threads may write apart into one file), retrying short writes and signals.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int, path: String) throws(BlobStoreError) {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let written = pwrite(fd, base + done, bytes.count - done, off_t(offset + done))
            if written < 0 {
                if errno == EINTR { continue }
                throw .lastSystemError("write to", path: path)
            }
            if written == 0 { throw .io(operation: "write to", path: path, code: EIO) }
            done += written
        }
    }

    /// An exclusive advisory lock (`flock`) on the file at `path`, created if need be,
    /// held until ``unlock(_:)``: how the index, the catalog and the tombstone log
    /// each let one process at a time through. Waits for the holder.
    package static func lockExclusively(_ path: String) throws(BlobStoreError) -> Int32 {
        let fd = try openFile(path, flags: O_RDWR | O_CREAT, operation: "open lock file")
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let error = BlobStoreError.lastSystemError("lock", path: path)
            close(fd)
            throw error
        }
        return fd
    }

    /// Releases a lock ``lockExclusively(_:)`` took.
    package static func unlock(_ fd: Int32) {
        _ = flock(fd, LOCK_UN)
        close(fd)
    }

    /// Writes every byte of `bytes` (no throwing closure around a buffer: the
    /// optimizer of Swift 6.3 crashed on that pattern in callers).
    package static func writeAll(_ fd: Int32, bytes: [UInt8], path: String) throws(BlobStoreError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in write(fd, raw.baseAddress! + offset, raw.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw .lastSystemError("write to", path: path)
            }
            if written == 0 { throw .io(operation: "write to", path: path, code: EIO) }
            offset += written
        }
    }

    /// Reads up to `buffer.count` bytes; returns 0 only at end of file.
    package static func readSome(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(BlobStoreError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = read(fd, base, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw .lastSystemError("read", path: path)
        }
    }

    /// SHA-256 of a whole file, read from offset 0 in pooled 256 KiB chunks (`pread`, so
    /// the descriptor's position does not matter; chunks that fit the CPU's cache). With
    /// `size`, reading stops there instead of asking once more for the end of the file.
    package static func hashContents(_ fd: Int32, size: Int? = nil, path: String) throws(BlobStoreError) -> BlobHash {
        try BufferPool.shared.withBuffer { (chunk) throws(BlobStoreError) -> BlobHash in
            var hasher = SHA256()
            var offset: off_t = 0
            let limit = off_t(size ?? Int(Int64.max))
            while offset < limit {
                let count = pread(fd, chunk.baseAddress, chunk.count, offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw .lastSystemError("read", path: path)
                }
                if count == 0 { break }
                hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
                offset += off_t(count)
            }
            return BlobHash(digest: hasher.finalize())
        }
    }

    package static func sync(_ fd: Int32, path: String) throws(BlobStoreError) {
        while fsync(fd) != 0 {
            if errno == EINTR { continue }
            throw .lastSystemError("flush to disk", path: path)
        }
    }

    /// Makes a directory entry (a new or renamed name inside `path`) durable.
    package static func syncDirectory(_ path: String) throws(BlobStoreError) {
        let fd = try openFile(path, flags: O_RDONLY | O_DIRECTORY, operation: "open directory")
        defer { close(fd) }
        try sync(fd, path: path)
    }

    /// Creates one directory; returns false when it already existed.
    @discardableResult
    static func makeDirectory(_ path: String) throws(BlobStoreError) -> Bool {
        if mkdir(path, directoryMode) == 0 { return true }
        let code = errno
        if code == EEXIST, isDirectory(path) { return false }
        throw .io(operation: "create directory", path: path, code: code == EEXIST ? ENOTDIR : code)
    }

    /// Creates a directory and any missing parents (like `mkdir -p`),
    /// syncing each parent that gained an entry.
    static func makeDirectoryTree(_ path: String) throws(BlobStoreError) {
        if isDirectory(path) { return }
        let parent = parentPath(of: path)
        if parent != path, !parent.isEmpty { try makeDirectoryTree(parent) }
        if try makeDirectory(path), !parent.isEmpty { try syncDirectory(parent) }
    }

    static func parentPath(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        if slash == trimmed.startIndex { return "/" }
        return String(trimmed[..<slash])
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFDIR
    }

    /// The size of a regular file, or nil if there is none at `path`.
    static func regularFileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// Seconds since the epoch of the last modification, or nil if unknown.
    static func modificationTime(_ path: String) -> Int? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        return Int(info.st_mtimespec.tv_sec)
        #else
        return Int(info.st_mtim.tv_sec)
        #endif
    }

    /// Removes a name; a name that is already gone counts as removed.
    /// Returns whether this call removed it.
    @discardableResult
    static func unlinkIfPresent(_ path: String) throws(BlobStoreError) -> Bool {
        if unlink(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw .lastSystemError("remove", path: path)
    }

    /// The names in a directory, without "." and "..". Missing or unreadable
    /// directories list as empty: callers walk caches that may be changing.
    static func contents(of path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> String in
                let bytes = raw.prefix(while: { $0 != 0 })
                return String(decoding: bytes, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func processIsAlive(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        if kill(pid, 0) == 0 { return true }
        // EPERM: it exists but belongs to someone else.
        return errno != ESRCH
    }
}

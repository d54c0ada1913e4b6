public import Foundation
internal import Hashing
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Streams one blob into the store.
///
/// Made for libcurl's write callback: chunks arrive on a non-async thread and
/// are batched into a 256 KiB buffer so the kernel sees few large writes; no
/// allocation happens per chunk. ``finish()`` hashes the file as written (on the
/// caller's thread, which is not the transfer thread), flushes it to disk and
/// only then makes it visible under its hash.
///
/// A writer is single-use. On any failure, ``discard()`` it and ask the store
/// for a new one; a writer that hits an I/O error refuses to finish, so a
/// blob with a missing piece can never be published under a hash that
/// includes it.
///
/// Thread safety: `@unchecked Sendable` because the one mutable state (file
/// descriptor, buffer) is guarded by a lock, so the writer may be
/// created on one thread and fed on another (the fetcher's thread) without
/// a data race. Chunks must still be written in order by one producer.
public final class BlobWriter: @unchecked Sendable {
    /// How many bytes are batched before one `write(2)`.
    public static var bufferCapacity: Int { BufferPool.shared.bufferSize }

    private enum State {
        case open
        case failed(BlobStoreError)
        case finished
        case discarded
    }

    private let store: BlobStore
    /// The temporary file's name, or nil when it has none (see ``BlobStore/createBlobFile()``).
    private let temporaryPath: String?
    /// What error messages call the file.
    private var fileLabel: String { temporaryPath ?? store.temporaryPath + "/(unnamed new blob)" }
    private let pendingDirectories: PendingDirectories?
    /// The store's group-flush failures before any byte was written (see ``GroupSync``).
    private let syncGeneration: UInt64
    private let lock = NSLock()
    private var descriptor: Int32
    private var buffer: UnsafeMutableRawBufferPointer?
    private var buffered = 0
    private var total = 0
    private var state = State.open

    init(store: BlobStore, descriptor: Int32, temporaryPath: String?, pendingDirectories: PendingDirectories? = nil) {
        self.store = store
        self.descriptor = descriptor
        self.temporaryPath = temporaryPath
        self.pendingDirectories = pendingDirectories
        self.syncGeneration = store.groupSync.failureGeneration
    }

    deinit {
        // Neither finish nor discard ran (the caller threw, or forgot):
        // leave no temporary file behind.
        if descriptor >= 0 { close(descriptor) }
        switch state {
        case .open, .failed: if let temporaryPath { _ = try? FileSystem.unlinkIfPresent(temporaryPath) }
        case .finished, .discarded: break
        }
        if let buffer { BufferPool.shared.recycle(buffer) }
    }

    /// The number of bytes accepted so far, for progress and size limits.
    public var byteCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return total
    }

    /// Appends the next chunk.
    ///
    /// The bytes are copied (or written) before returning, so the caller may
    /// reuse its buffer at once, as libcurl does.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(BlobStoreError) {
        lock.lock()
        defer { lock.unlock() }
        try ensureOpen()
        guard !bytes.isEmpty else { return }
        let (newTotal, overflow) = total.addingReportingOverflow(bytes.count)
        guard !overflow else {
            let error = BlobStoreError.io(operation: "append to", path: fileLabel, code: EFBIG)
            state = .failed(error)
            throw error
        }
        total = newTotal
        do {
            try append(bytes)
        } catch {
            state = .failed(error)
            throw error
        }
    }

    /// Appends bytes from any contiguous container (`[UInt8]`, `Data`).
    public func write(_ bytes: some ContiguousBytes) throws(BlobStoreError) {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(BlobStoreError) in try write(raw) }
        }
        try result.get()
    }

    /// Flushes the bytes to disk and publishes them under their hash.
    ///
    /// The file is flushed to disk first, by its own `fsync` or by a file-system flush
    /// shared with the writers finishing at the same time (``GroupSync``), then the
    /// shard directory (unless the writer defers that to a ``PendingDirectories``):
    /// the price of a name that always matches its content after a power cut.
    /// On failure the temporary file is removed and the writer is spent.
    public func finish() throws(BlobStoreError) -> StoredBlob {
        try Self.finishAll([self])[0].get()
    }

    /// Finishes several writers of one store at once, with one flush to disk for them
    /// all where the store can (``GroupSync``), and each writer's own outcome in order.
    ///
    /// For a thread that publishes downloads as they complete: a batch pays one round
    /// trip to the device instead of one per blob, without waiting for other threads to
    /// join its group. Every blob is still on disk before its name exists.
    public static func finishAll(_ writers: [BlobWriter]) -> [Result<StoredBlob, BlobStoreError>] {
        var results = [Result<StoredBlob, BlobStoreError>?](repeating: nil, count: writers.count)
        var byStore: [ObjectIdentifier: [Int]] = [:]
        var seen = Set<ObjectIdentifier>()
        for (i, w) in writers.enumerated() {
            // A writer named twice finishes once; locking it twice would deadlock.
            guard seen.insert(ObjectIdentifier(w)).inserted else {
                results[i] = .failure(.writerClosed(path: w.fileLabel))
                continue
            }
            byStore[ObjectIdentifier(w.store), default: []].append(i)
        }
        for indices in byStore.values {
            let group = indices.map { writers[$0] }
            for (i, r) in zip(indices, finishAll(sameStore: group)) { results[i] = r }
        }
        return results.map { $0! }
    }

    private static func finishAll(sameStore writers: [BlobWriter]) -> [Result<StoredBlob, BlobStoreError>] {
        // In one order whatever the caller's, so overlapping batches cannot deadlock.
        let ordered = writers.sorted { ObjectIdentifier($0) < ObjectIdentifier($1) }
        for w in ordered { w.lock.lock() }
        defer { for w in ordered { w.lock.unlock() } }
        let hashes: [Result<BlobHash, BlobStoreError>] = writers.map { w in
            Result { () throws(BlobStoreError) in try w.hashAndWrite() }
        }
        let ready = writers.indices.filter { (try? hashes[$0].get()) != nil }
        let since = ready.map { writers[$0].syncGeneration }.min() ?? 0
        let flushed = writers[0].store.groupSync.sync(
            ready.map { (writers[$0].descriptor, writers[$0].fileLabel) }, since: since)
        var syncErrors: [Int: BlobStoreError] = [:]
        for (i, error) in zip(ready, flushed) { if let error { syncErrors[i] = error } }
        return writers.indices.map { i -> Result<StoredBlob, BlobStoreError> in
            let w = writers[i]
            do throws(BlobStoreError) {
                let hash = try hashes[i].get()
                if let error = syncErrors[i] { throw error }
                return .success(try w.name(hash))
            } catch {
                w.fail(error)
                return .failure(error)
            }
        }
    }

    // MARK: - Under the lock

    /// The bytes written out and their hash.
    private func hashAndWrite() throws(BlobStoreError) -> BlobHash {
        try ensureOpen()
        // Hash here rather than chunk by chunk in `write`: `write` runs on the transfer
        // thread, which every download shares, while finishing runs on a publishing
        // thread, so hashing moves to the other cores. A body that never outgrew the
        // buffer (most photos and every avatar) is hashed where it is; a larger one is
        // read back from the page cache, which costs little.
        if let buffer, buffered == total {
            var hasher = SHA256()
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<buffered]))
            let hash = BlobHash(digest: hasher.finalize())
            try flushBuffer()
            return hash
        }
        try flushBuffer()
        return try FileSystem.hashContents(descriptor, size: total, path: fileLabel)
    }

    /// Makes the flushed file visible under its hash.
    private func name(_ hash: BlobHash) throws(BlobStoreError) -> StoredBlob {
        let stored: StoredBlob
        if let temporaryPath {
            closeDescriptor()
            stored = try store.publish(temporaryPath: temporaryPath, hash: hash, size: total,
                                       deferring: pendingDirectories, since: syncGeneration)
        } else {
            // An unnamed file is named through its descriptor, so it stays open until then.
            stored = try store.publish(unnamed: descriptor, hash: hash, size: total, deferring: pendingDirectories,
                                       since: syncGeneration)
            closeDescriptor()
        }
        state = .finished
        releaseBuffer()
        return stored
    }

    /// Spends a writer that could not finish: its temporary file goes.
    private func fail(_ error: BlobStoreError) {
        switch state {
        case .finished, .discarded:
            return  // A second finish is refused; what it published stays.
        case .open, .failed:
            closeDescriptor()
            if let temporaryPath { _ = try? FileSystem.unlinkIfPresent(temporaryPath) }
            state = .failed(error)
            releaseBuffer()
        }
    }

    /// Abandons the write and removes the temporary file. Safe to call more
    /// than once and after a failure.
    public func discard() {
        lock.lock()
        defer { lock.unlock() }
        switch state {
        case .finished, .discarded:
            return
        case .open, .failed:
            closeDescriptor()
            if let temporaryPath { _ = try? FileSystem.unlinkIfPresent(temporaryPath) }
            releaseBuffer()
            state = .discarded
        }
    }

    private func ensureOpen() throws(BlobStoreError) {
        switch state {
        case .open: return
        case .failed(let error): throw error
        case .finished, .discarded: throw .writerClosed(path: fileLabel)
        }
    }

    private func append(_ bytes: UnsafeRawBufferPointer) throws(BlobStoreError) {
        let capacity = Self.bufferCapacity
        var remaining = bytes
        if buffered > 0 {
            let take = min(capacity - buffered, remaining.count)
            copyIntoBuffer(UnsafeRawBufferPointer(rebasing: remaining[..<take]))
            remaining = UnsafeRawBufferPointer(rebasing: remaining[take...])
            if buffered == capacity { try flushBuffer() }
            if remaining.isEmpty { return }
        }
        // The buffer is empty here. A chunk at least as large as the buffer
        // gains nothing from a copy: hand it to the kernel directly.
        if remaining.count >= capacity {
            try FileSystem.writeAll(descriptor, remaining, path: fileLabel)
        } else {
            copyIntoBuffer(remaining)
        }
    }

    private func copyIntoBuffer(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        let storage: UnsafeMutableRawBufferPointer
        if let buffer {
            storage = buffer
        } else {
            storage = BufferPool.shared.take()
            buffer = storage
        }
        UnsafeMutableRawBufferPointer(rebasing: storage[buffered..<(buffered + bytes.count)])
            .copyMemory(from: bytes)
        buffered += bytes.count
    }

    private func flushBuffer() throws(BlobStoreError) {
        guard buffered > 0, let buffer else { return }
        try FileSystem.writeAll(
            descriptor, UnsafeRawBufferPointer(rebasing: buffer[0..<buffered]), path: fileLabel
        )
        buffered = 0
    }

    private func closeDescriptor() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
    }

    private func releaseBuffer() {
        if let buffer { BufferPool.shared.recycle(buffer) }
        buffer = nil
        buffered = 0
    }
}

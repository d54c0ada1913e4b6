internal import Synchronization

/// Reusable 256 KiB I/O buffers for writing blobs and reading them back to hash.
///
/// A buffer this size is above glibc's mmap threshold, so allocating one per blob maps
/// fresh pages and takes a page fault on every 4 KiB of it, then unmaps them again:
/// about a tenth of a fetch's CPU before buffers were reused. The pool keeps a few
/// buffers alive for the life of the process instead.
final class BufferPool: Sendable {
    static let shared = BufferPool(bufferSize: 256 * 1024, keep: 256)

    let bufferSize: Int
    private let keep: Int
    private let free = Mutex<[UnsafeMutableRawBufferPointerBox]>([])

    init(bufferSize: Int, keep: Int) {
        self.bufferSize = bufferSize
        self.keep = keep
    }

    /// A buffer of `bufferSize` bytes, with arbitrary contents; give it back with ``recycle(_:)``.
    func take() -> UnsafeMutableRawBufferPointer {
        if let box = free.withLock({ $0.popLast() }) { return box.buffer }
        return .allocate(byteCount: bufferSize, alignment: 64)
    }

    /// Returns a buffer from ``take()``; the caller must not touch it again.
    func recycle(_ buffer: UnsafeMutableRawBufferPointer) {
        let kept = free.withLock { pool -> Bool in
            guard pool.count < keep else { return false }
            pool.append(UnsafeMutableRawBufferPointerBox(buffer: buffer))
            return true
        }
        if !kept { buffer.deallocate() }
    }

    /// Runs `body` with a pooled buffer.
    func withBuffer<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let buffer = take()
        defer { recycle(buffer) }
        return try body(buffer)
    }
}

/// A pooled buffer is owned by exactly one user between `take` and `recycle`; the pool
/// only holds idle ones, so handing the pointer across threads is sound.
struct UnsafeMutableRawBufferPointerBox: @unchecked Sendable {
    let buffer: UnsafeMutableRawBufferPointer
}

import Foundation

/// Writes bytes as seekable zstd (``SeekableZstd``): gathered into frames of
/// ``SeekableZstd/frameBytes``, each handed to `sink` compressed as it fills, the
/// table written by ``finish()``.
///
/// ``mark()`` ends the frame being filled and says where the file stands, so a writer
/// can cut the file back there and write from it again (``rewind(to:)``): how a
/// manifest's tail is rewritten until it is committed.
package final class SeekableZstdWriter {
    /// Where a file stood at a ``mark()``: bytes written to the sink, and the frames.
    package struct Mark {
        package var compressedOffset: Int { table.compressedSize }
        fileprivate var table: SeekableZstd.Table
    }

    private let sink: (UnsafeRawBufferPointer) throws -> Void
    private let compressor = SeekableZstd.Compressor()
    private var pending: [UInt8] = []
    private(set) package var table = SeekableZstd.Table()

    package init(sink: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.sink = sink
        pending.reserveCapacity(SeekableZstd.frameBytes)
    }

    /// Uncompressed bytes written so far.
    package var offset: Int { table.decompressedSize + pending.count }

    package func write(_ bytes: some Collection<UInt8>) throws {
        var rest = bytes[...]
        while !rest.isEmpty {
            let take = min(rest.count, SeekableZstd.frameBytes - pending.count)
            pending.append(contentsOf: rest.prefix(take))
            rest = rest.dropFirst(take)
            if pending.count == SeekableZstd.frameBytes { try endFrame() }
        }
    }

    /// Ends the frame being filled; the state to come back to with ``rewind(to:)``.
    package func mark() throws -> Mark {
        try endFrame()
        return Mark(table: table)
    }

    /// Forgets everything written since `mark` (the caller cuts its file back to the
    /// mark's ``Mark/compressedOffset``).
    package func rewind(to mark: Mark) {
        pending.removeAll(keepingCapacity: true)
        table = mark.table
    }

    /// Writes the last frame and the seek table.
    package func finish() throws {
        try endFrame()
        try table.encoded().withUnsafeBytes { try sink($0) }
    }

    private func endFrame() throws {
        guard !pending.isEmpty else { return }
        let frame = pending.withUnsafeBytes { compressor.frame($0) }
        try frame.withUnsafeBytes { try sink($0) }
        table.append(compressed: frame.count, decompressed: pending.count)
        pending.removeAll(keepingCapacity: true)
    }
}

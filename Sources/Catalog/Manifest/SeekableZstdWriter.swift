import BlobStore
import Foundation

/// Writes bytes as seekable zstd (``SeekableZstd``): cut into frames where the content
/// says (``FrameCutter``), each handed to `sink` compressed as it ends, then the
/// digest frame and the seek table, written by ``finish()``.
///
/// Given earlier manifests (``FrameIndex``), a frame whose bytes one of them already
/// holds is not written again: consecutive such frames of one holder become a single
/// short reference (``SeekableZstd/Reference``). A run repeated over the same posts
/// then costs its header, its summary and a few hundred bytes of references.
///
/// ``mark()`` ends the frame being filled and says where the file stands, so a writer
/// can cut the file back there and write from it again (``rewind(to:)``): how a
/// manifest's tail is rewritten until it is committed.
package final class SeekableZstdWriter {
    /// Where a file stood at a ``mark()``: bytes written to the sink, and the frames.
    package struct Mark {
        package var compressedOffset: Int { table.compressedSize }
        package var decompressedOffset: Int { table.decompressedSize }
        fileprivate var table: SeekableZstd.Table
        fileprivate var holders: Set<String>

        fileprivate init(table: SeekableZstd.Table, holders: Set<String>) {
            self.table = table
            self.holders = holders
        }

        /// The mark at uncompressed byte `offset` of a file whose table is `whole`, where
        /// an entry starts there; its entries before it name `holders`.
        package init?(_ whole: SeekableZstd.Table, at offset: Int, holders: Set<String>) {
            self.holders = holders
            guard let end = whole.entry(startingAt: offset), whole.digests.count == whole.frameCount else { return nil }
            var table = SeekableZstd.Table()
            for index in 0..<end {
                table.append(compressed: whole.compressedStarts[index + 1] - whole.compressedStarts[index],
                             decompressed: whole.range(of: index).count)
            }
            table.digests = Array(whole.digests[0..<end])
            self.table = table
        }
    }

    private let sink: (UnsafeRawBufferPointer) throws -> Void
    private let compressor = SeekableZstd.Compressor()
    private let base: FrameIndex?
    private var pending: [UInt8] = []
    private var scanned = 0
    private var cutter = FrameCutter()
    /// Frames found in the base and not yet written as a reference: where, and their digests.
    private var naming: (location: FrameIndex.Location, digests: [BlobHash])?
    private(set) package var table = SeekableZstd.Table()
    /// The holders this file's references name.
    private(set) package var holders: Set<String> = []

    /// A writer to `sink`; with a `base`, frames it holds are named, not written.
    package init(base: FrameIndex? = nil, sink: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.sink = sink
        self.base = base
        pending.reserveCapacity(SeekableZstd.longestFrame)
    }

    /// Uncompressed bytes written so far.
    package var offset: Int { table.decompressedSize + (naming?.location.length ?? 0) + pending.count }

    package func write(_ bytes: some Collection<UInt8>) throws {
        var rest = bytes[...]
        while !rest.isEmpty {
            let take = min(rest.count, SeekableZstd.longestFrame - pending.count)
            pending.append(contentsOf: rest.prefix(take))
            rest = rest.dropFirst(take)
            while let end = pending.withUnsafeBytes({ cutter.cut($0, scanned: scanned) }) {
                try endFrame(count: end)
            }
            scanned = pending.count
        }
    }

    /// Ends the frame being filled; the state to come back to with ``rewind(to:)``.
    package func mark() throws -> Mark {
        try endFrame(count: pending.count)
        try endNaming()
        return Mark(table: table, holders: holders)
    }

    /// Forgets everything written since `mark` (the caller cuts its file back to the
    /// mark's ``Mark/compressedOffset``).
    package func rewind(to mark: Mark) {
        pending.removeAll(keepingCapacity: true)
        scanned = 0
        cutter.reset()
        naming = nil
        table = mark.table
        holders = mark.holders
    }

    /// Stops counting `names` among the holders (their bytes were copied in).
    package func dropHolders(_ names: Set<String>) { holders.subtract(names) }

    /// Writes the last frame, the digests and the seek table.
    package func finish() throws {
        try endFrame(count: pending.count)
        try endNaming()
        try table.encodedDigests().withUnsafeBytes { try sink($0) }
        try table.encoded().withUnsafeBytes { try sink($0) }
    }

    /// An entry copied as it is from another file (a frame or a reference) with its
    /// digest: how a file is written again entry by entry (``SeekableZstdFile/rewrite``).
    func appendEntry(_ compressed: [UInt8], decompressed: Int, digest: BlobHash) throws {
        precondition(pending.isEmpty)
        try endNaming()
        try compressed.withUnsafeBytes { try sink($0) }
        table.append(compressed: compressed.count, decompressed: decompressed)
        table.digests.append(digest)
    }

    /// `bytes` as one frame of its own, whatever their length.
    func appendFrame(_ bytes: [UInt8]) throws {
        precondition(pending.isEmpty)
        try endNaming()
        try bytes.withUnsafeBytes { try writeFrame($0, digest: BlobHash(hashing: $0)) }
    }

    /// A frame at `location` named rather than written, its bytes' SHA-256 `digest`:
    /// gathered with the frames named before it into one reference where they follow on.
    func appendNamed(_ location: FrameIndex.Location, digest: BlobHash) throws {
        precondition(pending.isEmpty)
        try name(location, digest: digest)
    }

    /// Ends a frame at the first `count` bytes pending.
    private func endFrame(count: Int) throws {
        guard count > 0 else { return }
        try pending.withUnsafeBytes { all in
            let bytes = UnsafeRawBufferPointer(rebasing: all[0..<count])
            let digest = BlobHash(hashing: bytes)
            // Never the first entry: a file must start with a zstd frame to be taken for one.
            if let base, table.frameCount > 0, let found = base.location(of: digest), found.length == count,
               base.holds(found, bytes) {
                try name(found, digest: digest)
            } else {
                try endNaming()
                try writeFrame(bytes, digest: digest)
            }
        }
        pending.removeSubrange(0..<count)
        scanned = 0
        cutter.reset()
    }

    private func writeFrame(_ bytes: UnsafeRawBufferPointer, digest: BlobHash) throws {
        let frame = compressor.frame(bytes)
        try frame.withUnsafeBytes { try sink($0) }
        table.append(compressed: frame.count, decompressed: bytes.count)
        table.digests.append(digest)
    }

    /// Adds a frame the base holds to the reference being gathered, when it follows
    /// on in the same holder and the reference stays within what a reader takes
    /// (``SeekableZstd/longestReference``, ``SeekableZstd/mostFramesNamed``); else ends
    /// that one and starts another.
    private func name(_ found: FrameIndex.Location, digest: BlobHash) throws {
        if var current = naming, current.location.holder == found.holder,
           current.location.offset + current.location.length == found.offset,
           current.location.length + found.length <= SeekableZstd.longestReference,
           current.digests.count < SeekableZstd.mostFramesNamed {
            current.location.length += found.length
            current.digests.append(digest)
            naming = current
            return
        }
        try endNaming()
        naming = (found, [digest])
    }

    private func endNaming() throws {
        guard let current = naming else { return }
        naming = nil
        let reference = SeekableZstd.Reference(holder: current.location.holder, offset: current.location.offset,
                                               length: current.location.length)
        let entry = reference.encoded()
        try entry.withUnsafeBytes { try sink($0) }
        table.append(compressed: entry.count, decompressed: reference.length)
        table.digests.append(SeekableZstd.digest(of: current.digests))
        holders.insert(reference.holder)
    }
}

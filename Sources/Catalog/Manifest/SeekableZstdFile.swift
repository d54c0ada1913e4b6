import BlobStore
import Foundation
import TweetModel
#if canImport(Glibc)
internal import Glibc
#endif

/// A seekable zstd file read at uncompressed offsets: the catalog's way back to one
/// post of a compressed manifest, a frame or two decompressed rather than the file.
///
/// Entries that name an earlier manifest's bytes (``SeekableZstd/Reference``) are read
/// there, in the folder given as `directory`: each frame read through a reference is
/// checked against the holder's digest of it, and the holder's digests against the
/// one the reference carries, so a holder replaced or damaged is an error, never other
/// bytes. Without a folder, a reference is an error (a holder never refers on).
///
/// The last frame read is kept, as a page of posts is mostly in a few frames.
/// One reader at a time (its contexts are not thread-safe).
package final class SeekableZstdFile {
    package let table: SeekableZstd.Table
    private let fd: Int32
    private let ownsDescriptor: Bool
    private let directory: String?
    private let decompressor = SeekableZstd.Decompressor()
    private var kept: (frame: Int, bytes: [UInt8])?
    /// Holders opened by this reader, by name (at most ``holdersKept``, the least
    /// recently used closed first); `holderDescriptors` are given ones.
    private var holders: [String: SeekableZstdFile] = [:]
    private var holderOrder: [String] = []
    /// Holders kept open a reader: a year of daily runs may name hundreds, and each
    /// lane of an expansion and each manifest the catalog reads has its own reader.
    static let holdersKept = 16
    private let holderDescriptors: [String: Int32]
    /// References resolved and checked, by entry.
    private var resolved: [Int: Resolved] = [:]

    /// Where a reference's bytes are: frames `frames` of `holder`.
    package struct Resolved {
        package let reference: SeekableZstd.Reference
        package let holder: SeekableZstdFile
        package let frames: Range<Int>
    }

    /// Reads the table of the file open at `fd` (which the caller keeps open and
    /// closes); references are read in `directory`, the file's own folder, where
    /// `holders` (name to descriptor) are not given.
    package init(descriptor fd: Int32, directory: String? = nil, holders: [String: Int32] = [:]) throws(SeekableZstd.Problem) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SeekableZstd.Problem(String(cString: strerror(errno))) }
        self.fd = fd
        ownsDescriptor = false
        self.directory = directory
        holderDescriptors = holders
        table = try SeekableZstd.Table.read(fd, size: Int(info.st_size))
    }

    /// The file open at `fd` whose table is already read (another reader of it).
    package init(descriptor fd: Int32, table: SeekableZstd.Table, directory: String? = nil) {
        self.fd = fd
        self.table = table
        ownsDescriptor = false
        self.directory = directory
        holderDescriptors = [:]
    }

    private init(owning fd: Int32) throws(SeekableZstd.Problem) {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw SeekableZstd.Problem(String(cString: strerror(errno)))
        }
        self.fd = fd
        ownsDescriptor = true
        directory = nil
        holderDescriptors = [:]
        do { table = try SeekableZstd.Table.read(fd, size: Int(info.st_size)) } catch {
            close(fd)
            throw error
        }
    }

    deinit { if ownsDescriptor { close(fd) } }

    /// The uncompressed bytes at `range`.
    package func read(_ range: Range<Int>) throws(SeekableZstd.Problem) -> Data {
        try read(range, holder: false)
    }

    /// The bytes at `range`. Read as a holder (for a file that names this one), every
    /// frame is checked against its digest, and a reference here is an error.
    private func read(_ range: Range<Int>, holder: Bool) throws(SeekableZstd.Problem) -> Data {
        guard range.lowerBound >= 0, range.upperBound <= table.decompressedSize else {
            throw SeekableZstd.Problem("bytes \(range) are past the file's \(table.decompressedSize)")
        }
        var out = Data(capacity: range.count)
        var at = range.lowerBound
        while at < range.upperBound {
            let index = table.frame(containing: at)
            let start = table.decompressedStarts[index]
            let end = min(range.upperBound, table.decompressedStarts[index + 1])
            if !holder, let resolved = try resolve(index) {
                // Only the holder's frames the range reaches, not the whole reference.
                let there = resolved.reference.offset + (at - start)
                out.append(try resolved.holder.read(there..<(there + end - at), holder: true))
            } else {
                let frame = holder ? try checkedFrame(index) : try self.frame(index)
                out.append(contentsOf: frame[(at - start)..<(end - start)])
            }
            at = end
        }
        return out
    }

    /// Entry `index`, uncompressed and checked (a reference's bytes read where they are).
    package func frame(_ index: Int) throws(SeekableZstd.Problem) -> [UInt8] {
        if let kept, kept.frame == index { return kept.bytes }
        var bytes = [UInt8](repeating: 0, count: table.range(of: index).count)
        try bytes.withUnsafeMutableBytes { o in Result { () throws(SeekableZstd.Problem) in try frame(index, into: o) } }.get()
        kept = (index, bytes)
        return bytes
    }

    /// A frame of this file (never a reference), checked against its digest: how a
    /// holder is read for a file that refers to it.
    private func checkedFrame(_ index: Int) throws(SeekableZstd.Problem) -> [UInt8] {
        if let kept, kept.frame == index { return kept.bytes }
        guard index < table.digests.count else { throw SeekableZstd.Problem("a frame without a digest") }
        let bytes = try frame(index)
        guard BlobHash(hashing: bytes) == table.digests[index] else {
            kept = nil
            throw SeekableZstd.Problem("a frame that is not what its digest says")
        }
        return bytes
    }

    /// Entry `index`, uncompressed and checked, into `output` (its size at least).
    package func frame(_ index: Int, into output: UnsafeMutableRawBufferPointer) throws(SeekableZstd.Problem) {
        let compressed = try entryBytes(index)
        let expected = table.range(of: index).count
        if let reference = try SeekableZstd.Reference.parse(entry: compressed) {
            let resolved = try resolve(index, reference)
            var at = 0
            for k in resolved.frames {
                let bytes = try resolved.holder.checkedFrame(k)
                UnsafeMutableRawBufferPointer(rebasing: output[at..<(at + bytes.count)]).copyBytes(from: bytes)
                at += bytes.count
            }
            return
        }
        let decompressor = self.decompressor
        try compressed.withUnsafeBytes { c in
            Result { () throws(SeekableZstd.Problem) in try decompressor.decompress(c, expected: expected, into: output) }
        }.get()
    }

    /// The bytes entry `index` takes in the file.
    func entryBytes(_ index: Int) throws(SeekableZstd.Problem) -> [UInt8] {
        try SeekableZstd.pread(fd, at: table.compressedStarts[index],
                               count: table.compressedStarts[index + 1] - table.compressedStarts[index])
    }

    /// The reference entry `index` is, or nil for a frame (read only when the entry is
    /// short enough to be one).
    package func reference(_ index: Int) throws(SeekableZstd.Problem) -> SeekableZstd.Reference? {
        let size = table.compressedStarts[index + 1] - table.compressedStarts[index]
        guard size <= 6 + 255 + 16 else { return nil }
        let bytes = try entryBytes(index)
        return try SeekableZstd.Reference.parse(entry: bytes)
    }

    /// Where entry `index`'s bytes are, if it is a reference: resolved once and checked.
    package func resolve(_ index: Int) throws(SeekableZstd.Problem) -> Resolved? {
        if let resolved = resolved[index] { return resolved }
        if let kept, kept.frame == index { return nil }
        guard let reference = try reference(index) else { return nil }
        return try resolve(index, reference)
    }

    /// Entry `index`, which is `reference`, resolved in its holder and checked.
    private func resolve(_ index: Int, _ reference: SeekableZstd.Reference) throws(SeekableZstd.Problem) -> Resolved {
        if let resolved = resolved[index] { return resolved }
        let holder = try self.holder(reference.holder)
        guard reference.length == table.range(of: index).count,
              let first = holder.table.entry(startingAt: reference.offset),
              let end = holder.table.entry(startingAt: reference.offset + reference.length), end > first,
              end - first <= SeekableZstd.mostFramesNamed,
              holder.table.digests.count == holder.table.frameCount
        else {
            throw SeekableZstd.Problem("a reference to bytes \(reference.offset)..<\(reference.offset + reference.length) of \(reference.holder), which are not whole frames of it")
        }
        guard index < table.digests.count, SeekableZstd.digest(of: holder.table.digests[first..<end]) == table.digests[index] else {
            throw SeekableZstd.Problem("a reference to \(reference.holder), which no longer holds the bytes it named")
        }
        let result = Resolved(reference: reference, holder: holder, frames: first..<end)
        resolved[index] = result
        return result
    }

    private func holder(_ name: String) throws(SeekableZstd.Problem) -> SeekableZstdFile {
        if let holder = holders[name] {
            if holderOrder.last != name, let at = holderOrder.firstIndex(of: name) {
                holderOrder.remove(at: at)
                holderOrder.append(name)
            }
            return holder
        }
        let holder: SeekableZstdFile
        if let given = holderDescriptors[name] {
            let copy = dup(given)
            guard copy >= 0 else { throw SeekableZstd.Problem("\(name): \(String(cString: strerror(errno)))") }
            holder = try SeekableZstdFile(owning: copy)
        } else {
            guard let directory else {
                throw SeekableZstd.Problem("an entry that names \(name)'s bytes (read it where its manifests are)")
            }
            // Never a FIFO or a device a stranger named like a manifest.
            let fd: Int32
            do { fd = try FileSystem.openRegularFile(directory + "/" + name, operation: "read").fd } catch {
                throw SeekableZstd.Problem("it refers to \(name), which cannot be read: \(error)")
            }
            holder = try SeekableZstdFile(owning: fd)
        }
        if holders.count >= Self.holdersKept, let oldest = holderOrder.first {
            holderOrder.removeFirst()
            holders[oldest] = nil
            resolved = resolved.filter { $0.value.reference.holder != oldest }
        }
        holders[name] = holder
        holderOrder.append(name)
        return holder
    }

    /// Refuses the file at `path` when it is seekable zstd naming another manifest's
    /// bytes (or not readable enough to tell): what a file from elsewhere, a bucket's
    /// copy, must not be, lest a stranger's file be read against this cache's own
    /// manifests. A bucket's copies are written whole (`BucketManifest`).
    package static func requireWhole(_ path: String) throws(SeekableZstd.Problem) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return }
        defer { close(fd) }
        guard SeekableZstd.isCompressed(fd), let file = try? SeekableZstdFile(descriptor: fd) else { return }
        guard (try? file.hasReferences()) == false else {
            throw SeekableZstd.Problem("it names another manifest's bytes; a bucket's manifests must be whole")
        }
    }

    /// Whether any entry is a reference.
    package func hasReferences() throws(SeekableZstd.Problem) -> Bool {
        for index in 0..<table.frameCount where try reference(index) != nil { return true }
        return false
    }

    /// Writes the whole file, uncompressed, to `output`, entry by entry (checked).
    package func expand(to output: Int32, path: String) throws(SeekableZstd.Problem) {
        for index in 0..<table.frameCount {
            let bytes = try frame(index)
            do { try FileSystem.writeAll(output, bytes: bytes, path: path) } catch {
                throw SeekableZstd.Problem("cannot write \(path): \(error)")
            }
        }
        kept = nil
    }

    /// Every byte of the manifests named: `materializing` for a file copied whole.
    package static func everything(of names: Set<String>) -> [String: [Range<Int>]] {
        Dictionary(uniqueKeysWithValues: names.map { ($0, [0..<Int.max]) })
    }

    /// Writes the file to `sink` as one that reads on its own, what it names copied in
    /// (each frame checked); false, with nothing written, when it names nothing and
    /// is whole as it is. What leaves this folder (a copy, a download) is whole.
    package func writeWhole(to sink: @escaping (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        let holders = try holderNames()
        guard !holders.isEmpty else { return false }
        try rewrite(to: sink, materializing: Self.everything(of: holders))
        return true
    }

    /// Writes the file again to `sink`, entry by entry, as a seekable zstd file of
    /// its own: entries copied as they are, except that
    /// - an entry holding any of `blanks` (sorted, apart) is written again with those
    ///   bytes as spaces (``JSONBlanking``);
    /// - a reference reaching bytes `materializing` gives for its holder (ranges of
    ///   the holder's JSON about to change) has the holder's frames there copied in,
    ///   checked against their digests; its other frames stay named.
    ///
    /// The JSON's offsets and every frame's boundaries stay as they were, so what
    /// other manifests name in this one still holds where it was not blanked. A frame
    /// the blanks leave as it was (spaces over spaces) stays as it was. Returns the
    /// entries whose bytes changed.
    @discardableResult
    package func rewrite(to sink: @escaping (UnsafeRawBufferPointer) throws -> Void, blanking blanks: [Range<Int>] = [],
                         materializing: [String: [Range<Int>]]) throws -> [Range<Int>] {
        var changed: [Range<Int>] = []
        guard table.digests.count == table.frameCount else {
            throw SeekableZstd.Problem("a file without digests is written again whole, not entry by entry")
        }
        let out = SeekableZstdWriter(sink: sink)
        var next = 0
        for index in 0..<table.frameCount {
            let range = table.range(of: index)
            while next < blanks.count, blanks[next].upperBound <= range.lowerBound { next += 1 }
            var touching: [Range<Int>] = []
            var i = next
            while i < blanks.count, blanks[i].lowerBound < range.upperBound {
                touching.append(blanks[i])
                i += 1
            }
            let compressed = try entryBytes(index)
            guard let reference = try SeekableZstd.Reference.parse(entry: compressed) else {
                var bytes = touching.isEmpty ? [] : try frame(index)
                let before = bytes
                JSONBlanking.apply(touching, to: &bytes, offset: range.lowerBound)
                if bytes == before {
                    try out.appendEntry(compressed, decompressed: range.count, digest: table.digests[index])
                } else {
                    try out.appendFrame(bytes)
                    changed.append(range)
                }
                continue
            }
            let changing = materializing[reference.holder] ?? []
            let there = reference.offset..<(reference.offset + reference.length)
            guard !touching.isEmpty || changing.contains(where: { $0.overlaps(there) }) else {
                try out.appendEntry(compressed, decompressed: range.count, digest: table.digests[index])
                continue
            }
            // Frame by frame: copied in where blanked here or changing there, still
            // named (as references of their own) elsewhere.
            let resolved = try resolve(index, reference)
            let holder = resolved.holder
            var at = range.lowerBound
            for k in resolved.frames {
                let held = holder.table.range(of: k)
                let piece = at..<(at + held.count)
                at = piece.upperBound
                let copying = changing.contains(where: { $0.overlaps(held) })
                var bytes: [UInt8] = []
                var blanked = false
                if touching.contains(where: { $0.overlaps(piece) }) {
                    bytes = try holder.checkedFrame(k)
                    let before = bytes
                    JSONBlanking.apply(touching, to: &bytes, offset: piece.lowerBound)
                    blanked = bytes != before
                }
                if !blanked && !copying {
                    try out.appendNamed(FrameIndex.Location(holder: reference.holder, offset: held.lowerBound, length: held.count),
                                        digest: holder.table.digests[k])
                    continue
                }
                if blanked {
                    try out.appendFrame(bytes)
                    changed.append(piece)
                } else {
                    _ = try holder.checkedFrame(k)
                    try out.appendEntry(try holder.entryBytes(k), decompressed: held.count, digest: holder.table.digests[k])
                }
            }
        }
        kept = nil
        try out.finish()
        return changed
    }

    /// The names of the manifests this one refers to.
    package func holderNames() throws(SeekableZstd.Problem) -> Set<String> {
        var names: Set<String> = []
        for index in 0..<table.frameCount {
            if let reference = try reference(index) { names.insert(reference.holder) }
        }
        return names
    }
}

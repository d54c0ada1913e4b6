import BlobStore
import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// A seekable zstd file read at uncompressed offsets: the catalog's way back to one
/// post of a compressed manifest, a frame or two decompressed rather than the file.
///
/// The last frame read is kept, as a page of posts is mostly in a few frames.
/// One reader at a time (its contexts are not thread-safe).
package final class SeekableZstdFile {
    package let table: SeekableZstd.Table
    private let fd: Int32
    private let decompressor = SeekableZstd.Decompressor()
    private var kept: (frame: Int, bytes: [UInt8])?

    /// Reads the table of the file open at `fd` (which the caller keeps open and closes).
    package init(descriptor fd: Int32) throws(SeekableZstd.Problem) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SeekableZstd.Problem(String(cString: strerror(errno))) }
        self.fd = fd
        table = try SeekableZstd.Table.read(fd, size: Int(info.st_size))
    }

    /// The file open at `fd` whose table is already read (another reader of it).
    package init(descriptor fd: Int32, table: SeekableZstd.Table) {
        self.fd = fd
        self.table = table
    }

    /// The uncompressed bytes at `range`.
    package func read(_ range: Range<Int>) throws(SeekableZstd.Problem) -> Data {
        guard range.lowerBound >= 0, range.upperBound <= table.decompressedSize else {
            throw SeekableZstd.Problem("bytes \(range) are past the file's \(table.decompressedSize)")
        }
        var out = Data(capacity: range.count)
        var at = range.lowerBound
        while at < range.upperBound {
            let index = table.frame(containing: at)
            let frame = try self.frame(index)
            let start = table.decompressedStarts[index]
            let end = min(range.upperBound, table.decompressedStarts[index + 1])
            out.append(contentsOf: frame[(at - start)..<(end - start)])
            at = end
        }
        return out
    }

    /// Frame `index`, decompressed and checked.
    package func frame(_ index: Int) throws(SeekableZstd.Problem) -> [UInt8] {
        if let kept, kept.frame == index { return kept.bytes }
        var bytes = [UInt8](repeating: 0, count: table.decompressedStarts[index + 1] - table.decompressedStarts[index])
        try bytes.withUnsafeMutableBytes { o in Result { () throws(SeekableZstd.Problem) in try frame(index, into: o) } }.get()
        kept = (index, bytes)
        return bytes
    }

    /// Frame `index`, decompressed and checked, into `output` (its size at least).
    package func frame(_ index: Int, into output: UnsafeMutableRawBufferPointer) throws(SeekableZstd.Problem) {
        let compressed = try SeekableZstd.pread(fd, at: table.compressedStarts[index],
                                                count: table.compressedStarts[index + 1] - table.compressedStarts[index])
        let expected = table.decompressedStarts[index + 1] - table.decompressedStarts[index]
        let decompressor = self.decompressor
        try compressed.withUnsafeBytes { c in
            Result { () throws(SeekableZstd.Problem) in try decompressor.decompress(c, expected: expected, into: output) }
        }.get()
    }

    /// Writes the whole file, uncompressed, to `output`, frame by frame (checked).
    package func expand(to output: Int32, path: String) throws(SeekableZstd.Problem) {
        for index in 0..<table.frameCount {
            let bytes = try frame(index)
            do { try FileSystem.writeAll(output, bytes: bytes, path: path) } catch {
                throw SeekableZstd.Problem("cannot write \(path): \(error)")
            }
        }
        kept = nil
    }
}

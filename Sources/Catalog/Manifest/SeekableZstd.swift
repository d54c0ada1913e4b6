import BlobStore
internal import CZstd
import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// Zstandard's seekable format (zstd's `contrib/seekable_format`): independent frames
/// of ``frameBytes`` each, then a skippable frame holding a table of their sizes.
///
/// Why this format for manifests: a run's manifest is JSON that compresses about
/// eightfold, and the catalog reads single posts back from it by their offsets in the
/// JSON. With independent frames and a table, a post is one small frame away
/// (``SeekableZstdFile``) instead of a whole stream; and the file is still plain zstd
/// to everyone else (`zstd -dc run.json.zst | jq` skips the table as it skips any
/// skippable frame).
///
/// Every frame carries zstd's content checksum, so bytes changed on a disk or in a
/// bucket are an error, never a different post.
///
/// Two additions of this project's, which a run's manifest needs to stay small when it
/// repeats an earlier run (the same search again, over the same posts):
/// - a **digest frame**, a skippable frame between the last frame and the seek table
///   holding each entry's SHA-256, so frames can be found by their content;
/// - **references**: an entry that is not a zstd frame but a short record naming bytes
///   of an earlier manifest in the same folder (``Reference``). Its digest is the
///   SHA-256 of the digests of the frames it names, so a reader checks what it reads
///   there against what the writer saw. A file with references is not plain zstd
///   (`zstd -dc` stops at the first, saying so); `tweetcache manifest` reads it.
package enum SeekableZstd {
    /// Why bytes are not a seekable zstd file, or not one this reader takes.
    package struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    static let frameMagic: UInt32 = 0xFD2F_B528
    static let skippableMagic: UInt32 = 0x184D_2A5E
    static let seekableMagic: UInt32 = 0x8F92_EAB1
    static let footerSize = 9
    /// A skippable frame's magic number for the digest frame (the seek table takes `…5E`).
    static let digestsMagic: UInt32 = 0x184D_2A5D
    static let digestsTag: UInt32 = 0x3144_4354  // "TCD1"
    /// A reference's first bytes ("TCRF"): no zstd magic, so zstd refuses the file
    /// loudly rather than skip the bytes and print a manifest with posts missing.
    static let referenceMagic: UInt32 = 0x4652_4354

    /// Uncompressed bytes a frame: reading one post back decompresses at most a few
    /// of these (tens of microseconds), and larger frames compress only a little better
    /// (a manifest at 64 KB frames is 13% bigger than at 1 MB).
    package static let frameBytes = 64 << 10
    /// Frames are cut where the content says (``FrameCutter``), at least this far apart
    /// and at most ``longestFrame``: about ``frameBytes`` on average, and the same
    /// frames for the same bytes whatever came before them.
    static let shortestFrame = 32 << 10
    package static let longestFrame = 256 << 10
    /// The most bytes one reference names: a reader that takes a whole entry at once
    /// holds at most this much of one.
    static let longestReference = 4 << 20
    /// The most frames one reference may span: a writer's are at least
    /// ``shortestFrame`` but for the last before a tail, so 128 and a few; a stranger's
    /// tiny frames do not make one reference a million checks.
    static let mostFramesNamed = 1_024
    /// The largest frame a reader takes, from another writer or a bucket: a bound on
    /// what one frame costs to decompress.
    static let largestFrame = 16 << 20
    /// Frames a table may list: 2^27, as zstd's own seekable reader allows.
    static let mostFrames = 1 << 27
    static let smallestFrame = 9
    static let largestCompressedFrame = ZSTD_compressBound(largestFrame)
    static let level: Int32 = 3

    /// Whether `prefix` (a file's first bytes) starts a zstd stream.
    package static func isCompressed(_ prefix: some Collection<UInt8>) -> Bool {
        guard prefix.count >= 4 else { return false }
        let b = Array(prefix.prefix(4))
        let magic = UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
        return magic == frameMagic || magic & 0xFFFF_FFF0 == 0x184D_2A50
    }

    /// Whether the file open at `fd` starts a zstd stream (read with `pread`).
    package static func isCompressed(_ fd: Int32) -> Bool {
        (try? pread(fd, at: 0, count: 4)).map { isCompressed($0) } ?? false
    }

    /// The frames' places: compressed and uncompressed offsets, each with one more
    /// entry than there are frames (the ends).
    package struct Table: Sendable, Equatable {
        package var compressedStarts: [Int] = [0]
        package var decompressedStarts: [Int] = [0]
        /// Each entry's SHA-256 (a frame's of its bytes, a reference's of the digests
        /// of the frames it names), from the digest frame; empty in a file without one
        /// (written before references, or by another tool).
        package var digests: [BlobHash] = []

        package init() {}

        package var frameCount: Int { compressedStarts.count - 1 }
        package var decompressedSize: Int { decompressedStarts[decompressedStarts.count - 1] }
        /// Bytes of the frames, without the table.
        package var compressedSize: Int { compressedStarts[compressedStarts.count - 1] }

        mutating func append(compressed: Int, decompressed: Int) {
            compressedStarts.append(compressedSize + compressed)
            decompressedStarts.append(decompressedSize + decompressed)
        }

        /// The uncompressed bytes of entry `index`.
        package func range(of index: Int) -> Range<Int> { decompressedStarts[index]..<decompressedStarts[index + 1] }

        /// The entry starting exactly at uncompressed byte `offset`, if one does.
        func entry(startingAt offset: Int) -> Int? {
            guard offset >= 0, offset <= decompressedSize else { return nil }
            if offset == decompressedSize { return frameCount }
            let index = frame(containing: offset)
            return decompressedStarts[index] == offset ? index : nil
        }

        /// The digest frame (empty when there are no digests).
        func encodedDigests() -> [UInt8] {
            guard !digests.isEmpty else { return [] }
            var out: [UInt8] = []
            out.reserveCapacity(12 + digests.count * 32)
            func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
            u32(digestsMagic)
            u32(UInt32(4 + digests.count * 32))
            u32(digestsTag)
            for digest in digests { out.append(contentsOf: digest.bytes) }
            return out
        }

        /// The frame holding uncompressed byte `offset`.
        package func frame(containing offset: Int) -> Int {
            var low = 0, high = frameCount
            while high - low > 1 {
                let middle = (low + high) / 2
                if decompressedStarts[middle] <= offset { low = middle } else { high = middle }
            }
            return low
        }

        /// The table as its skippable frame.
        func encoded() -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(8 + frameCount * 8 + footerSize)
            func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
            u32(skippableMagic)
            u32(UInt32(frameCount * 8 + footerSize))
            for i in 0..<frameCount {
                u32(UInt32(compressedStarts[i + 1] - compressedStarts[i]))
                u32(UInt32(decompressedStarts[i + 1] - decompressedStarts[i]))
            }
            u32(UInt32(frameCount))
            out.append(0)  // no checksums in the table: each frame carries its own
            u32(seekableMagic)
            return out
        }

        /// Reads the table at the end of the file open at `fd`, `size` bytes long, and
        /// checks that its frames add up to the file.
        package static func read(_ fd: Int32, size: Int) throws(Problem) -> Table {
            try read(size: size) { offset, count throws(Problem) in try pread(fd, at: offset, count: count) }
        }

        /// Reads the table of a file `size` bytes long whose bytes `bytes` reads.
        static func read(size: Int, _ bytes: (Int, Int) throws(Problem) -> [UInt8]) throws(Problem) -> Table {
            guard size >= 8 + footerSize else { throw Problem("too short for a seekable zstd file") }
            let footer = try bytes(size - footerSize, footerSize)
            guard u32(footer, 5) == seekableMagic else {
                throw Problem("a zstd file without a seek table (written by another tool?)")
            }
            guard footer[4] & 0x7C == 0 else { throw Problem("a seek table of an unknown kind") }
            let count = Int(u32(footer, 0))
            let entry = footer[4] & 0x80 != 0 ? 12 : 8
            let tableSize = 8 + count * entry + footerSize
            // Every frame takes at least `smallestFrame` bytes before the table: a count
            // no file of this size can hold is refused before anything is sized by it.
            guard count <= mostFrames, tableSize <= size, count * smallestFrame <= size - tableSize else {
                throw Problem("a seek table longer than its file")
            }
            let table = try bytes(size - tableSize, tableSize - footerSize)
            guard u32(table, 0) == skippableMagic, Int(u32(table, 4)) == tableSize - 8 else {
                throw Problem("a seek table whose frame is malformed")
            }
            var result = Table()
            result.compressedStarts.reserveCapacity(count + 1)
            result.decompressedStarts.reserveCapacity(count + 1)
            for i in 0..<count {
                let compressed = Int(u32(table, 8 + i * entry)), decompressed = Int(u32(table, 12 + i * entry))
                guard decompressed <= largestFrame else { throw Problem("a frame of \(decompressed) bytes, over \(largestFrame)") }
                // No zstd frame is shorter (magic, header, one block's header); and none
                // holding at most `largestFrame` is longer than zstd's bound for it.
                guard compressed >= smallestFrame, compressed <= largestCompressedFrame else {
                    throw Problem("a frame of \(compressed) compressed bytes")
                }
                result.append(compressed: compressed, decompressed: decompressed)
            }
            // Between the frames and the table: nothing, or the digest frame, one
            // digest an entry.
            let gap = size - tableSize - result.compressedSize
            if gap == 12 + count * 32 {
                let frame = try bytes(result.compressedSize, gap)
                guard u32(frame, 0) == digestsMagic, Int(u32(frame, 4)) == gap - 8, u32(frame, 8) == digestsTag else {
                    throw Problem("a digest frame that is malformed")
                }
                result.digests.reserveCapacity(count)
                for i in 0..<count { result.digests.append(BlobHash(bytes: frame[(12 + i * 32)..<(44 + i * 32)])!) }
            } else if gap != 0 {
                throw Problem("its frames come to \(result.compressedSize) bytes, its file to \(size - tableSize)")
            }
            return result
        }

        private static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
            UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
        }
    }

    /// The whole of a seekable zstd file in memory, uncompressed and checked; a
    /// table that says more than `limit` bytes is refused before any is allocated.
    package static func decompress(_ data: Data, limit: Int = Manifest.largestReadWhole) throws(Problem) -> Data {
        let bytes = [UInt8](data)
        let table = try Table.read(size: bytes.count) { offset, count throws(Problem) in Array(bytes[offset..<(offset + count)]) }
        guard table.decompressedSize <= limit else {
            throw Problem("it would uncompress to \(table.decompressedSize) bytes, over \(limit) read into memory")
        }
        var out = [UInt8](repeating: 0, count: table.decompressedSize)
        let decompressor = Decompressor()
        try bytes.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                Result { () throws(Problem) in
                    for i in 0..<table.frameCount {
                        let start = table.decompressedStarts[i], count = table.decompressedStarts[i + 1] - start
                        try decompressor.decompress(
                            UnsafeRawBufferPointer(rebasing: input[table.compressedStarts[i]..<table.compressedStarts[i + 1]]),
                            expected: count, into: UnsafeMutableRawBufferPointer(rebasing: output[start..<(start + count)]))
                    }
                }
            }
        }.get()
        return Data(out)
    }

    /// An entry naming bytes of an earlier manifest in the same folder instead of
    /// holding them: `length` uncompressed bytes from `offset` of the manifest named
    /// `holder`, which begin and end where its frames do. Offsets, not frame numbers:
    /// `forget` blanks posts in place, so a manifest's offsets never move.
    package struct Reference: Sendable, Equatable {
        package var holder: String
        package var offset: Int
        package var length: Int

        package init(holder: String, offset: Int, length: Int) {
            self.holder = holder
            self.offset = offset
            self.length = length
        }

        /// The entry's bytes: its magic, a version, the holder's name, offset and length.
        func encoded() -> [UInt8] {
            var out: [UInt8] = []
            withUnsafeBytes(of: referenceMagic.littleEndian) { out.append(contentsOf: $0) }
            out.append(1)
            out.append(UInt8(holder.utf8.count))
            out.append(contentsOf: holder.utf8)
            withUnsafeBytes(of: UInt64(offset).littleEndian) { out.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt64(length).littleEndian) { out.append(contentsOf: $0) }
            return out
        }

        /// The reference an entry's bytes are, or nil when they are not one.
        static func parse(entry bytes: [UInt8]) throws(Problem) -> Reference? {
            try bytes.withUnsafeBytes { b in
                Result { () throws(Problem) in isReference(b) ? try parse(b) : nil }
            }.get()
        }

        /// Whether an entry's bytes start as a reference does.
        static func isReference(_ bytes: UnsafeRawBufferPointer) -> Bool {
            bytes.count >= 4 && bytes.loadUnaligned(as: UInt32.self) == referenceMagic.littleEndian
        }

        /// The reference an entry's bytes hold; a problem if they are not a whole,
        /// well-formed one naming a manifest (never a path).
        static func parse(_ bytes: UnsafeRawBufferPointer) throws(Problem) -> Reference {
            guard isReference(bytes), bytes.count >= 6, bytes[4] == 1 else { throw Problem("a reference of an unknown kind") }
            let nameLength = Int(bytes[5])
            guard bytes.count == 6 + nameLength + 16 else { throw Problem("a reference of the wrong length") }
            guard let holder = String(validating: UnsafeRawBufferPointer(rebasing: bytes[6..<(6 + nameLength)]), as: UTF8.self),
                  CacheKey.isManifestName(holder), holder.hasSuffix(CacheKey.manifestSuffix)
            else { throw Problem("a reference to something that is not a compressed manifest's name") }
            let offset = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 6 + nameLength, as: UInt64.self))
            let length = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 14 + nameLength, as: UInt64.self))
            guard offset < 1 << 48, length > 0, length <= UInt64(longestReference) else {
                throw Problem("a reference to \(length) bytes at \(offset)")
            }
            return Reference(holder: holder, offset: Int(offset), length: Int(length))
        }
    }

    /// The SHA-256 a reference's entry has: of the digests of the frames it names.
    static func digest(of digests: some Collection<BlobHash>) -> BlobHash {
        var joined: [UInt8] = []
        joined.reserveCapacity(digests.count * 32)
        for digest in digests { joined.append(contentsOf: digest.bytes) }
        return BlobHash(hashing: joined)
    }

    /// `count` bytes at `offset` of `fd`, or a problem if the file is shorter.
    static func pread(_ fd: Int32, at offset: Int, count: Int) throws(Problem) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { Glibc.pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw Problem(got == 0 ? "shorter than its seek table says" : String(cString: strerror(errno))) }
            done += got
        }
        return bytes
    }

    /// Makes frames, one context reused (not thread-safe: one per writer).
    package final class Compressor {
        private let context: OpaquePointer

        package init() {
            context = ZSTD_createCCtx()
            ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level)
            ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
        }

        deinit { ZSTD_freeCCtx(context) }

        /// One frame of `bytes`.
        package func frame(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
            let bound = ZSTD_compressBound(bytes.count)
            var out = [UInt8](repeating: 0, count: bound)
            let written = out.withUnsafeMutableBytes { o in
                ZSTD_compress2(context, o.baseAddress, bound, bytes.baseAddress, bytes.count)
            }
            // With a bound-sized output and valid parameters, zstd cannot fail.
            precondition(ZSTD_isError(written) == 0, String(cString: ZSTD_getErrorName(written)))
            out.removeSubrange(written...)
            return out
        }
    }

    /// Decompresses frames, one context reused (not thread-safe).
    package final class Decompressor {
        private let context: OpaquePointer

        package init() { context = ZSTD_createDCtx() }
        deinit { ZSTD_freeDCtx(context) }

        /// The `expected` bytes `compressed` holds (one frame, perhaps with skippable
        /// frames after it), into `output`; anything else is a problem.
        package func decompress(_ compressed: UnsafeRawBufferPointer, expected: Int,
                                into output: UnsafeMutableRawBufferPointer) throws(Problem) {
            precondition(output.count >= expected)
            // A zstd frame of this format (not a legacy one), with its checksum: a frame
            // that does not say how to check it is not taken.
            // (The frame header descriptor's bit 2 is Content_Checksum_flag: RFC 8878, 3.1.1.1.1.)
            if Reference.isReference(compressed) {
                throw Problem("an entry that names another manifest's bytes (read it where its manifests are)")
            }
            guard compressed.count >= 5, compressed.loadUnaligned(as: UInt32.self) == frameMagic.littleEndian,
                  compressed[4] & 0x04 != 0
            else { throw Problem("a frame that is not zstd with a checksum") }
            let got = ZSTD_decompressDCtx(context, output.baseAddress, expected, compressed.baseAddress, compressed.count)
            if ZSTD_isError(got) != 0 {
                throw Problem("a damaged frame: \(String(cString: ZSTD_getErrorName(got)))")
            }
            guard got == expected else { throw Problem("a frame of \(got) bytes where its table says \(expected)") }
        }
    }
}

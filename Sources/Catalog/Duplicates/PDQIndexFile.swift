import Foundation
import MediaTypes
#if canImport(Glibc)
internal import Glibc
#endif

/// The near-duplicate index of a catalog's photos, kept beside it
/// (`catalog.sqlite.pdq`) so that a process starting maps it instead of building it
/// (at a million photos: 1.9 s and 110 MB built, against a map and a copy of the ids
/// and hashes).
///
/// Layout, in this machine's byte order (the file is made where it is read, never
/// shared): a 64-byte header (``magic``, the count, the highest `images_pdq.id` read),
/// the ids (8 bytes each), the hashes (32 bytes each), then the piece table
/// (``PDQIndex/PieceTable``: 16 x 65,537 offsets and 16 x count slots, 4 bytes each).
/// The ids and hashes are copied out; the table is used where it is mapped, read only.
///
/// Derived data, never trusted: a file of the wrong size or header is not used; one
/// whose hashes are not the catalog's (``PostCatalog/perceptualIndex(searchable:)``
/// compares a sample, and every match found is checked against the catalog's own hash
/// before it is answered) is made again; the table's offsets and slots are bounded
/// where they are read. Written to a temporary name and renamed, so a reader never
/// maps half a file.
struct PDQIndexFile {
    let ids: [Int64]
    let index: PDQIndex
    /// The highest `images_pdq.id` when the file was written.
    let generation: Int64

    static let magic: (UInt64, UInt32) = (0x3158_4449_5144_5043, 0x0102_0304)  // "CPDQIDX1", byte order
    static let headerSize = 64

    /// Writes `index` (searchable, every slot filed) with its `ids` and `generation`.
    static func write(_ index: PDQIndex, ids: [Int64], generation: Int64, to path: String) throws {
        precondition(MemoryLayout<PDQHash>.stride == 32)
        guard let table = index.table, table.slots == index.count, ids.count == index.count else {
            throw CocoaError(.fileWriteUnknown)
        }
        let temporary = path + ".tmp-\(getpid())"
        // A name of its own, made new: never through a link or into a file left there.
        unlink(temporary)
        let fd = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var ok = false
        defer {
            close(fd)
            if !ok { unlink(temporary) }
        }
        func put(_ bytes: UnsafeRawBufferPointer) throws {
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
                guard n > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                done += n
            }
        }
        var header = [UInt8](repeating: 0, count: headerSize)
        header.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: magic.0, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: magic.1, toByteOffset: 8, as: UInt32.self)
            raw.storeBytes(of: UInt64(index.count), toByteOffset: 16, as: UInt64.self)
            raw.storeBytes(of: generation, toByteOffset: 24, as: Int64.self)
        }
        try header.withUnsafeBytes(put)
        try ids.withUnsafeBytes(put)
        try index.hashes.withUnsafeBytes(put)
        try put(UnsafeRawBufferPointer(table.offsets))
        try put(UnsafeRawBufferPointer(table.postings))
        guard rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        ok = true
    }

    /// Removes the file at `path` and any temporary a writer left beside it (killed
    /// mid-write): both hold photos' hashes.
    static func remove(_ path: String) {
        unlink(path)
        let url = URL(fileURLWithPath: path)
        let prefix = url.lastPathComponent + ".tmp-"
        let folder = url.deletingLastPathComponent().path
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
            unlink(folder + "/" + name)
        }
    }

    /// Maps the file at `path`; nil when there is none or it is not a whole index file.
    static func open(_ path: String) -> PDQIndexFile? {
        precondition(MemoryLayout<PDQHash>.stride == 32)
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size >= headerSize else { return nil }
        let length = Int(info.st_size)
        guard let mapping = mmap(nil, length, PROT_READ, MAP_PRIVATE, fd, 0), mapping != MAP_FAILED else { return nil }
        let raw = UnsafeRawBufferPointer(start: mapping, count: length)
        let count = Int(clamping: raw.load(fromByteOffset: 16, as: UInt64.self))
        guard raw.load(fromByteOffset: 0, as: UInt64.self) == magic.0, raw.load(fromByteOffset: 8, as: UInt32.self) == magic.1,
              count < Int(UInt32.max),
              length == headerSize + count * (8 + 32) + PDQIndex.PieceTable.byteCount(slots: count)
        else {
            munmap(mapping, length)
            return nil
        }
        let generation = raw.load(fromByteOffset: 24, as: Int64.self)
        let ids = [Int64](unsafeUninitializedCapacity: count) { buffer, done in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[headerSize..<(headerSize + 8 * count)]))
            done = count
        }
        let hashesStart = headerSize + 8 * count
        let hashes = [PDQHash](unsafeUninitializedCapacity: count) { buffer, done in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[hashesStart..<(hashesStart + 32 * count)]))
            done = count
        }
        let tableStart = (mapping + hashesStart + 32 * count).assumingMemoryBound(to: UInt32.self)
        let table = PDQIndex.PieceTable(
            offsets: UnsafeBufferPointer(start: tableStart, count: 16 * 65_537),
            postings: UnsafeBufferPointer(start: tableStart + 16 * 65_537, count: 16 * count), slots: count,
            release: .mapped(mapping, length))
        return PDQIndexFile(ids: ids, index: PDQIndex(hashes: hashes, table: table), generation: generation)
    }
}

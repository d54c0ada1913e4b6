internal import Foundation
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// One entry of the derived area: a file of the current layout (a pack, a
/// thumbnail) or a folder of the old one, and the image it belongs to.
public struct DerivedEntry: Sendable, Hashable {
    public var hash: BlobHash
    /// Relative to the cache root.
    public var path: String
    /// A per-image folder of the old layout (per-tile trees), not a file.
    public var isLegacyFolder: Bool
    /// Bytes of the file, or of every file in the folder.
    public var bytes: Int
    /// Seconds since 1970 of the last change.
    public var modified: Double

    /// What the entry is, when it is a file TweetCache writes (nil for what an
    /// interrupted write left behind, `<hex>.thumb-150.jpg.tmp-42`).
    public var key: CacheKey? { CacheKey(path: path) }
}

extension BlobStore {
    /// Every entry of the derived area, shard by shard, found by walking the
    /// disk (lazy packs the tile server made have no index row). Names that
    /// belong to no hash are skipped.
    public func allDerivedEntries() -> [DerivedEntry] {
        let base = layout.path(CacheLayout.derivedFolder)
        var entries: [DerivedEntry] = []
        for shard in FileSystem.contents(of: base).filter(Self.isShardName).sorted() {
            for name in FileSystem.contents(of: base + "/" + shard).sorted() {
                guard let hash = CacheLayout.derivedOwner(fileName: name), hash.shard == shard else { continue }
                entries.append(entry(hash, path: "\(CacheLayout.derivedFolder)/\(shard)/\(name)"))
            }
        }
        return entries
    }

    /// The derived files and old-layout folder of one image.
    public func derivedEntries(of hash: BlobHash) -> [DerivedEntry] {
        let shard = CacheLayout.derivedShard(hash)
        return FileSystem.contents(of: layout.path(shard)).sorted()
            .filter { CacheLayout.derivedOwner(fileName: $0) == hash }
            .map { entry(hash, path: "\(shard)/\($0)") }
    }

    /// The whole derived file at `relative`: a regular file only (a symlink, a FIFO
    /// or a device planted in the cache is refused, never followed or read
    /// forever), at most `limit` bytes.
    public func readDerived(_ relative: String, limit: Int = 1 << 30) throws(BlobStoreError) -> [UInt8] {
        let path = layout.path(relative)
        let (bytes, size) = try readDerived(path, first: limit + 1)
        guard size <= limit else { throw .io(operation: "read derived file (over \(limit) bytes)", path: path, code: EFBIG) }
        return bytes
    }

    /// The first `count` bytes of the derived file at `relative` (all of it when
    /// shorter), and the file's size: a pack's header and index without its tiles.
    /// Regular files only, as ``readDerived(_:limit:)``.
    public func readDerived(_ relative: String, upTo count: Int) throws(BlobStoreError) -> (bytes: [UInt8], fileSize: Int) {
        try readDerived(layout.path(relative), first: count)
    }

    private func readDerived(_ path: String, first count: Int) throws(BlobStoreError) -> (bytes: [UInt8], fileSize: Int) {
        let (fd, size, _) = try FileSystem.openRegularFile(path, operation: "read derived file")
        defer { close(fd) }
        let wanted = max(0, min(size, count))
        var bytes = [UInt8](repeating: 0, count: wanted)
        var filled = 0
        while filled < wanted {
            let result = bytes.withUnsafeMutableBytes { raw in
                Result { () throws(BlobStoreError) -> Int in
                    try FileSystem.readSome(fd, into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), path: path)
                }
            }
            let read = try result.get()
            if read == 0 { break }
            filled += read
        }
        if filled < wanted { bytes.removeSubrange(filled...) }
        return (bytes, size)
    }

    /// Removes every derived file of `hash` (current and old layout); returns the bytes freed.
    @discardableResult
    public func removeDerived(of hash: BlobHash) -> Int {
        var freed = 0
        for entry in derivedEntries(of: hash) {
            if (try? FileManager.default.removeItem(atPath: layout.path(entry.path))) != nil { freed += entry.bytes }
        }
        return freed
    }

    private func entry(_ hash: BlobHash, path: String) -> DerivedEntry {
        let full = layout.path(path)
        var info = stat()
        guard lstat(full, &info) == 0 else { return DerivedEntry(hash: hash, path: path, isLegacyFolder: false, bytes: 0, modified: 0) }
        let folder = info.st_mode & S_IFMT == S_IFDIR
        var bytes = Int(info.st_size)
        if folder {
            bytes = 0
            if let walker = FileManager.default.enumerator(at: URL(fileURLWithPath: full), includingPropertiesForKeys: [.fileSizeKey]) {
                for case let file as URL in walker { bytes += (try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0 }
            }
        }
        return DerivedEntry(hash: hash, path: path, isLegacyFolder: folder, bytes: bytes, modified: Double(info.st_mtim.tv_sec))
    }
}

import Foundation
internal import Synchronization
#if canImport(Glibc)
internal import Glibc
#endif

/// One manifest opened to read posts back by their offsets in its JSON, as the
/// catalog keeps them: one `pread` a post from a plain `.json`, a frame or two
/// (``SeekableZstdFile``) from a compressed `.json.zst`.
final class ManifestBytes {
    private let fd: Int32
    private let zstd: SeekableZstdFile?

    /// Opens `path` (never through a symbolic link); nil with `errno` set when it
    /// cannot be opened, a problem when it is compressed without a readable table.
    init?(path: String) throws(SeekableZstd.Problem) {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        self.fd = fd
        guard SeekableZstd.isCompressed(fd) else {
            zstd = nil
            return
        }
        do {
            zstd = SeekableZstdFile(descriptor: fd, table: try Self.table(fd, path: path),
                                    directory: (path as NSString).deletingLastPathComponent)
        } catch {
            close(fd)
            throw error
        }
    }

    /// The seek table of the file open at `fd`, from the tables read lately when the
    /// file is the same one (its inode, size and modification time): a page of posts
    /// from fifty runs would otherwise read fifty tables, on each lane, every page.
    private static func table(_ fd: Int32, path: String) throws(SeekableZstd.Problem) -> SeekableZstd.Table {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SeekableZstd.Problem(String(cString: strerror(errno))) }
        let key = TableKey(path: path, inode: UInt64(info.st_ino), size: Int(info.st_size),
                           mtime: Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec))
        if let kept = tables.withLock({ $0[key] }) { return kept }
        let table = try SeekableZstd.Table.read(fd, size: key.size)
        tables.withLock { kept in
            // At most about 4 million frames (64 MB) of tables: then start over.
            if kept.values.reduce(0, { $0 + $1.frameCount }) + table.frameCount > 1 << 22 { kept.removeAll() }
            kept[key] = table
        }
        return table
    }

    private struct TableKey: Hashable, Sendable {
        var path: String
        var inode: UInt64
        var size: Int
        var mtime: Int
    }

    private static let tables = Mutex<[TableKey: SeekableZstd.Table]>([:])

    deinit { close(fd) }

    /// The bytes at `range` of the JSON; nil when the file is shorter or damaged
    /// there (changed behind the catalog's back).
    func read(_ range: Range<Int>) -> Data? {
        if let zstd { return try? zstd.read(range) }
        var bytes = Data(count: range.count)
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, range.count, off_t(range.lowerBound)) }
        return got == range.count ? bytes : nil
    }
}

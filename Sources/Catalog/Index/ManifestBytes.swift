import Foundation
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
        var magic = [UInt8](repeating: 0, count: 4)
        let got = magic.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 4, 0) }
        do {
            zstd = got == 4 && SeekableZstd.isCompressed(magic) ? try SeekableZstdFile(descriptor: fd) : nil
        } catch {
            close(fd)
            throw error
        }
    }

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

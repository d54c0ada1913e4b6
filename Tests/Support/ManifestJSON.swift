import Catalog
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A run's manifest file as JSON, whichever way it was written: runs write seekable
/// zstd (`.json.zst`), earlier runs and `--manifest run.json` plain JSON.
/// What a compressed manifest names in earlier ones is read there, as every reader does.
public func manifestJSON(_ url: URL) throws -> Data {
    let data = try Data(contentsOf: url)
    guard SeekableZstd.isCompressed(data.prefix(4)) else { return data }
    let fd = open(url.path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw CocoaError(.fileReadNoSuchFile) }
    defer { close(fd) }
    let file = try SeekableZstdFile(descriptor: fd, directory: url.deletingLastPathComponent().path)
    return try file.read(0..<file.table.decompressedSize)
}

/// ``manifestJSON(_:)`` as text.
public func manifestText(_ url: URL) throws -> String {
    String(decoding: try manifestJSON(url), as: UTF8.self)
}

import Catalog
import Foundation

/// A run's manifest file as JSON, whichever way it was written: runs write seekable
/// zstd (`.json.zst`), earlier runs and `--manifest run.json` plain JSON.
public func manifestJSON(_ url: URL) throws -> Data {
    let data = try Data(contentsOf: url)
    return SeekableZstd.isCompressed(data.prefix(4)) ? try SeekableZstd.decompress(data) : data
}

/// ``manifestJSON(_:)`` as text.
public func manifestText(_ url: URL) throws -> String {
    String(decoding: try manifestJSON(url), as: UTF8.self)
}

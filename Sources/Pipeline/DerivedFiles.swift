import BlobStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where derived files live: `derived/<2 hex>/<64 hex>/` beside the blobs, one folder
/// per source image, so removing an image's derivations is one directory and the
/// server can find them from the hash alone.
public struct DerivedFiles: Sendable {
    public let root: URL

    public init(cacheRoot: URL) { root = cacheRoot }

    /// Path relative to the cache root, as recorded in the index and manifests.
    public func folder(_ hash: BlobHash) -> String { "derived/\(hash.shard)/\(hash.hex)" }
    public func thumbnail(_ hash: BlobHash, size: Int, png: Bool) -> String {
        "\(folder(hash))/thumb-\(size).\(png ? "png" : "jpg")"
    }
    public func deepZoom(_ hash: BlobHash) -> String { "\(folder(hash))/dz/image.dzi" }
    public func iiif(_ hash: BlobHash) -> String { "\(folder(hash))/iiif/info.json" }

    public func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// Writes a derived file under a temporary name and renames it into place: a
    /// crash leaves the old file or none, never half a thumbnail. No fsync: a derived
    /// file can always be made again from its blob. Also used by the tile server
    /// for what it makes on request.
    public func write(_ bytes: [UInt8], to relative: String) throws {
        let target = url(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = target.path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else {
            throw PipelineError.cache("cannot write \(temporary)")
        }
        guard rename(temporary, target.path) == 0 else {
            let code = errno
            unlink(temporary)
            throw PipelineError.cache("cannot rename into \(target.path): \(String(cString: strerror(code)))")
        }
    }
}

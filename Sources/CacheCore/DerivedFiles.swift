public import BlobStore
public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes the files derived from cached images, at the paths ``CacheLayout`` gives.
///
/// Thumbnails are small and can always be made again, so they are renamed into
/// place without a flush; pyramid packs are published through the ``BlobStore``
/// (flushed, renamed), since a pack is expensive to remake and is served by offset.
public struct DerivedFiles: Sendable {
    public let root: URL
    public let layout: CacheLayout

    public init(layout: CacheLayout) {
        root = layout.root
        self.layout = layout
    }

    public func url(_ relative: String) -> URL { layout.url(relative) }

    /// Writes a derived file under a temporary name and renames it into place: a
    /// process killed at any instant leaves the old file or none, never half a
    /// thumbnail. No fsync: after a power loss the new file may be short or empty, and
    /// the server, which checks a thumbnail against its recorded hash before serving
    /// it, makes it again from its blob. Also used by the tile server for what it
    /// makes on request.
    public func write(_ bytes: [UInt8], to relative: String) throws(CacheError) {
        let target = url(relative)
        do {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw .unusable("cannot make \(target.deletingLastPathComponent().path): \(error.localizedDescription)")
        }
        let temporary = target.path + ".tmp-\(getpid())"
        do {
            try FileSystem.writeUnflushed(bytes, to: temporary)
        } catch {
            unlink(temporary)
            throw .unusable("cannot write \(temporary): \(error)")
        }
        guard rename(temporary, target.path) == 0 else {
            let code = errno
            unlink(temporary)
            throw CacheError.unusable("cannot rename into \(target.path): \(String(cString: strerror(code)))")
        }
    }
}

import BlobStore
import Imaging
import Logging
import Synchronization

/// Reads tiles out of pyramid packs: the header and index of a pack are read
/// once and kept (a few kilobytes per image, bounded), then a tile is one
/// `pread` at its offset, checked against its CRC-32 and JPEG markers before
/// it is served.
///
/// A damaged pack is never served as garbage: the request gets 500, the
/// problem is logged once per pack (not once per tile a viewer asks for), and
/// `tweetcache verify --repair` rebuilds it from the original.
final class PackReader: Sendable {
    private let files: CacheFiles
    private let indexes: MemoryCache<BlobHash, CachedPack>
    private let reported = Mutex(Set<BlobHash>())
    private let logger: Logger

    init(files: CacheFiles, capacity: Int = 16 << 20, logger: Logger) {
        self.files = files
        indexes = MemoryCache(capacity: capacity)
        self.logger = logger
    }

    /// The pack of `hash`, or nil when it has none (not made yet, or an image
    /// that needs none). Throws 500 for a pack that cannot be used.
    func pack(_ hash: BlobHash) async throws(HTTPFailure) -> PyramidPack? {
        if let known = indexes.get(hash) { return known.pack }
        let relative = CacheLayout.pack(hash)
        do {
            var (head, size) = try await files.load(relative, offset: 0, length: 4096)
            guard let end = PyramidPack.indexEnd(header: head) else { throw PackError.notAPack }
            if end > head.count, end <= size {
                head = try await files.load(relative, offset: 0, length: end).bytes
            }
            let pack = try PyramidPack(headerAndIndex: head, fileLength: size)
            // A pack under another image's name must not be served as this one.
            guard pack.source == hash.bytes else { throw PackError.corrupt("it was cut from another original") }
            indexes.put(hash, CachedPack(pack: pack))
            return pack
        } catch let failure as CacheFiles.Failure {
            if failure == .missing { return nil }
            if case let .remote(why) = failure { throw HTTPFailure.unavailable("the object store: \(why)") }
            throw damaged(hash, "\(failure)")
        } catch {
            throw damaged(hash, "\(error)")
        }
    }

    /// One tile's checked bytes. `tile` names it in the pack's grid, so a pack
    /// rewritten since its index was read (a repair, another process) is read
    /// afresh once before the tile is called damaged.
    func tile(_ hash: BlobHash, _ pack: PyramidPack, level: Int, column: Int, row: Int) async throws(HTTPFailure) -> [UInt8]? {
        var current = pack
        for attempt in 0..<2 {
            guard let entry = current.entry(level: level, column: column, row: row) else { return nil }
            do {
                let (bytes, size) = try await files.load(CacheLayout.pack(hash), offset: entry.offset, length: entry.length)
                guard size == current.fileLength else {
                    throw PackError.truncated("file is \(size) bytes, its header says \(current.fileLength)")
                }
                try current.check(bytes, entry)
                return bytes
            } catch {
                if case let .remote(why) = error as? CacheFiles.Failure {
                    throw HTTPFailure.unavailable("the object store: \(why)")
                }
                indexes.remove(hash)
                // Over a bucket, the pack may have been replaced or deleted there since
                // its head was copied: read it afresh before calling it damaged.
                files.forgetRemote(CacheLayout.pack(hash))
                guard attempt == 0, let fresh = try await self.pack(hash), fresh != current else { throw damaged(hash, "\(error)") }
                current = fresh
            }
        }
        return nil
    }

    /// Forgets a pack's index (after it is written or rebuilt).
    func forget(_ hash: BlobHash) {
        indexes.remove(hash)
        _ = reported.withLock { $0.remove(hash) }
    }

    private func damaged(_ hash: BlobHash, _ why: String) -> HTTPFailure {
        let first = reported.withLock { $0.insert(hash).inserted }
        if first {
            logger.error("damaged pyramid pack \(CacheLayout.pack(hash)): \(why); `tweetcache verify --repair` rebuilds it")
        }
        return HTTPFailure(status: 500, message: "the pyramid of \(hash.hex) is damaged")
    }
}

/// A pack's parsed header and index, weighed by its entries.
struct CachedPack: MemoryCost {
    var pack: PyramidPack
    var bytes: Int { 256 + pack.entries.count * 24 }
}

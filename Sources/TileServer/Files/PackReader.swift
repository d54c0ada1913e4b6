import BlobStore
import Imaging
import Logging
import Synchronization

/// Reads tiles out of pyramid packs: the header and index of a pack are read
/// once and kept (a few kilobytes per image, bounded), then a tile is one
/// `pread` at its offset, checked against its CRC-32 and JPEG markers before
/// it is served.
///
/// A damaged pack is never served as garbage: its tiles are cut from the
/// original instead (checked against its name like every original), the problem
/// is logged once per pack (not once per tile a viewer asks for) and counted, a
/// local pack is moved to `quarantine/` (so the server builds a new one), and
/// `tweetcache verify --repair` rebuilds a bucket's from the original.
final class PackReader: Sendable {
    private let files: CacheFiles
    private let indexes: MemoryCache<BlobHash, CachedPack>
    private let reported = Mutex(Set<BlobHash>())
    /// Packs found damaged, and when: read again only after ``retryDamagedAfter``
    /// (the bucket may be repaired meanwhile).
    private let damagedAt = Mutex([BlobHash: ContinuousClock.Instant]())
    private let logger: Logger
    static let retryDamagedAfter = Duration.seconds(60)

    init(files: CacheFiles, capacity: Int = 16 << 20, logger: Logger) {
        self.files = files
        indexes = MemoryCache(capacity: capacity)
        self.logger = logger
    }

    /// Drops every pack index read (after a `forget`).
    func forgetAll() { indexes.removeAll() }

    /// A pack that failed its checks: the tile asked for is cut from the original.
    struct Damaged: Error {}

    /// The pack of `hash`, or nil when it has none (not made yet, an image that
    /// needs none, or a pack found damaged: its tiles are then cut from the original).
    func pack(_ hash: BlobHash) async throws(HTTPFailure) -> PyramidPack? {
        if let known = indexes.get(hash) { return known.pack }
        if let since = damagedAt.withLock({ $0[hash] }) {
            if ContinuousClock.now - since < Self.retryDamagedAfter { return nil }
            _ = damagedAt.withLock { $0.removeValue(forKey: hash) }
        }
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
            if case let .remote(why) = failure { throw HTTPFailure.store(why, what: "the pyramid of \(hash.hex)") }
            damaged(hash, "\(failure)")
            return nil
        } catch {
            damaged(hash, "\(error)")
            return nil
        }
    }

    /// One tile's checked bytes. `tile` names it in the pack's grid, so a pack
    /// rewritten since its index was read (a repair, another process) is read
    /// afresh once before the tile is called damaged. Throws ``Damaged`` for a
    /// pack that fails its checks, an ``HTTPFailure`` when the bucket fails.
    func tile(_ hash: BlobHash, _ pack: PyramidPack, level: Int, column: Int, row: Int) async throws -> [UInt8]? {
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
                    throw HTTPFailure.store(why, what: "the pyramid of \(hash.hex)")
                }
                indexes.remove(hash)
                // Over a bucket, the pack may have been replaced or deleted there since
                // its head was copied: read it afresh before calling it damaged.
                files.forgetRemote(CacheLayout.pack(hash))
                guard attempt == 0, let fresh = try await self.pack(hash), fresh != current else {
                    damaged(hash, "\(error)")
                    throw Damaged()
                }
                current = fresh
            }
        }
        return nil
    }

    /// Forgets a pack's index (after it is written or rebuilt).
    func forget(_ hash: BlobHash) {
        indexes.remove(hash)
        _ = reported.withLock { $0.remove(hash) }
        _ = damagedAt.withLock { $0.removeValue(forKey: hash) }
    }

    /// Records a pack that failed its checks: not read again for a while, moved
    /// aside when local, logged once, counted.
    private func damaged(_ hash: BlobHash, _ why: String) {
        let relative = CacheLayout.pack(hash)
        indexes.remove(hash)
        damagedAt.withLock { $0[hash] = ContinuousClock.now }
        let local = files.exists(relative)
        files.forgetRemote(relative)
        files.integrity?.corrupt(relative, source: local ? .disk : .bucket, log: false)
        let first = reported.withLock { $0.insert(hash).inserted }
        if first {
            let until = local ? "" : " until `tweetcache verify --store --repair` rebuilds it"
            logger.error("damaged pyramid pack \(relative): \(why); its tiles are cut from the original\(until)")
        }
    }
}

/// A pack's parsed header and index, weighed by its entries.
struct CachedPack: MemoryCost {
    var pack: PyramidPack
    var bytes: Int { 256 + pack.entries.count * 24 }
}

import BlobStore
import Foundation
import Logging
import Synchronization

/// What every file read back from the cache directory or the bucket must hash to,
/// and what happens to one that does not.
///
/// The server never trusts what it reads back (as restic and git trust no
/// backend): an original must hash to its name; a thumbnail, which is named by
/// its original, to a hash recorded when it was made (by the pipeline in the
/// index, by another machine in the manifest `sync` read, or by this server when
/// it made one). Packs are checked tile by tile by ``PackReader``; manifests are
/// parsed before use. A file that fails is never served: it is moved to
/// `quarantine/` (a bucket's copy is copied there), logged once, and counted in
/// `/metrics`; the answer is made again from a sound original where it can be.
final class IntegrityGuard: Sendable {
    enum Source: String, Sendable { case disk, bucket }

    private let layout: CacheLayout
    private let index: CacheIndex?
    private let logger: Logger
    private let metrics: ServerMetrics
    private let reported = Mutex(Set<String>())
    /// Hashes of thumbnails this server made, for when the index cannot be written.
    private let made = Mutex([String: BlobHash]())

    /// `index`: the opened cache's; nil (a cache the server cannot write) opens one
    /// that exists, read as it is.
    init(layout: CacheLayout, index given: CacheIndex?, logger: Logger, metrics: ServerMetrics) {
        self.layout = layout
        var opened = given
        if opened == nil, FileManager.default.fileExists(atPath: layout.indexURL.path) {
            do { opened = try CacheIndex(path: layout.indexURL) } catch {
                // Served all the same: originals are checked against their names; a thumbnail
                // whose recorded hash cannot be looked up is made again, never served unchecked.
                logger.error("the cache index cannot be opened (\(error)); thumbnails on disk are made again rather than served unchecked")
            }
        }
        index = opened
        self.logger = logger
        self.metrics = metrics
    }

    /// What a whole file read back must hash to.
    enum Expectation: Equatable {
        /// Nothing to check by hash: a manifest (parsed before use), a pack (each
        /// tile has its CRC), a file of the old layout.
        case unchecked
        /// One of these.
        case sha256(Set<BlobHash>)
        /// A thumbnail whose hash nobody recorded: it is made again rather than
        /// served unchecked.
        case unknown
    }

    func expectation(for relative: String) -> Expectation {
        let owner: BlobHash
        switch CacheKey(path: relative) {
        case .original(let hash): return .sha256([hash])
        case .thumbnail(let hash, _, _): owner = hash
        default: return .unchecked
        }
        var known = (try? index?.contentHashes(ofDerived: relative, source: owner)) ?? []
        if let mine = made.withLock({ $0[relative] }) { known.insert(mine) }
        return known.isEmpty ? .unknown : .sha256(known)
    }

    /// Remembers what a thumbnail this server made hashes to (in the index too, so
    /// the next server run finds it).
    func recordMade(_ relative: String, bytes: [UInt8]) {
        let hash = BlobHash(hashing: bytes)
        made.withLock { table in
            if table.count >= 65_536 { table.removeAll(keepingCapacity: true) }
            table[relative] = hash
        }
        try? index?.recordContentHashes([(relative, hash)])
    }

    /// A file that failed its check: moved aside when it is on disk, logged the
    /// first time, counted every time.
    func corrupt(_ relative: String, source: Source, log: Bool = true) {
        let kind = switch CacheKey(path: relative)?.kind {
        case .original: "original"
        case .pack: "pack"
        default: "thumbnail"
        }
        metrics.integrityFailure(kind: kind, source: source.rawValue)
        if source == .disk { quarantine(relative) }
        let first = reported.withLock { seen -> Bool in
            if seen.count >= 65_536 { seen.removeAll(keepingCapacity: true) }
            return seen.insert(relative).inserted
        }
        if log, first {
            logger.error("\(source == .disk ? "the cache's" : "the bucket's") copy of \(relative) does not match its SHA-256: not served\(source == .disk ? ", moved to \(CacheLayout.quarantineFolder)/" : ", copied to \(CacheLayout.quarantineFolder)/bucket/")")
        }
    }

    /// Moves a damaged file out of the way (`quarantine/<hex>` for an original, as
    /// `verify --repair` does; `quarantine/<path>` for the rest), so the next
    /// request makes it again instead of finding it.
    private func quarantine(_ relative: String) {
        let parts = relative.split(separator: "/")
        let target: String
        if parts.first == "blobs", let name = parts.last, let hash = BlobHash(hex: name) {
            target = CacheLayout.quarantined(hash)
        } else {
            target = CacheLayout.quarantineFolder + "/" + relative
        }
        let destination = layout.url(target)
        try? FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        if rename(layout.path(relative), destination.path) != 0 { unlink(layout.path(relative)) }
    }
}

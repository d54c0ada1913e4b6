public import BlobStore
import Foundation
import Imaging
public import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Converts a cache written before pyramid packs, once, as GRDB's `DatabaseMigrator`
/// runs a migration once: the first command that opens such a cache (a fetch, the
/// server, any inspect command) turns every image's folder of per-tile trees
/// (`derived/ab/<hex>/`: thumbnails, `dz/`, `iiif/`) into today's files (one pack,
/// thumbnails beside it) with the old pyramid's tile size and overlap, drops the old
/// rows and folder, and records the layout version in `<cache>/layout`. No reader
/// after it knows the old layout.
///
/// Safe with other processes: one converts while the others wait on a lock; a kill
/// midway leaves each image either converted or still old (its folder goes only
/// after its pack is written and recorded), and the next command carries on.
public enum LayoutMigration {
    /// The layout this build writes: 2, an image's derived files beside each other
    /// (`<hex>.pack`, `<hex>.thumb-<size>.jpg`).
    public static let version = 2

    public struct Report: Sendable, Equatable {
        /// Images converted this time.
        public var converted = 0
        /// Images that could not be (their original is gone or is not an image): hash
        /// and reason. Their old folder stays for `verify` to report and `gc` to free.
        public var failed: [String: String] = [:]
    }

    /// Converts the cache `layout` describes when its layout is older than
    /// ``version``; nil when there was nothing to do (the common case: one small
    /// file read). ``Cache/open(_:store:creation:logger:)`` calls it, once per opening.
    @discardableResult
    package static func runIfNeeded(layout: CacheLayout, threads: Int = ProcessInfo.processInfo.activeProcessorCount) -> Report? {
        if isCurrent(layout) { return nil }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: layout.root.path, isDirectory: &isFolder), isFolder.boolValue else {
            return nil
        }
        // One process converts; the others wait here, then find the marker written.
        let lock = open(layout.root.appendingPathComponent("layout.lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if lock >= 0 { flock(lock, LOCK_EX) }
        defer { if lock >= 0 { flock(lock, LOCK_UN); close(lock) } }
        if isCurrent(layout) { return nil }
        var report = Report()
        if FileManager.default.fileExists(atPath: layout.derivedURL.path) {
            // A cache that cannot be opened now is not marked: the next command tries again.
            guard let store = try? BlobStore(layout: layout), let index = try? CacheIndex(path: layout.indexURL) else {
                return nil
            }
            for entry in store.allDerivedEntries() where entry.isLegacyFolder {
                do { try convert(entry.hash, store: store, index: index, threads: threads) } catch {
                    report.failed[entry.hash.hex] = error.description
                    continue
                }
                report.converted += 1
            }
        }
        try? Data("\(version)\n".utf8).write(to: layout.root.appendingPathComponent(markerFile), options: .atomic)
        return report
    }

    /// One line for a conversion that did something, one per image it could not convert.
    public static func log(_ report: Report, to logger: Logger) {
        if report.converted > 0 {
            logger.notice("converted \(report.converted) image(s) of the layout before packs to packs and thumbnails")
        }
        for (hash, why) in report.failed.sorted(by: { $0.key < $1.key }) {
            logger.warning("could not convert the old-layout files of \(hash): \(why) (`verify` reports the folder, `gc` frees it)")
        }
    }

    /// The file that says which layout a cache is in.
    public static let markerFile = "layout"

    static func isCurrent(_ layout: CacheLayout) -> Bool {
        guard let text = try? String(contentsOf: layout.root.appendingPathComponent(markerFile), encoding: .utf8),
              let found = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return false }
        return found >= version
    }

    /// Where the old layout kept an image's files, for reading them once here.
    static func oldDescriptor(_ hash: BlobHash) -> String { "\(CacheLayout.legacyFolder(hash))/dz/image.dzi" }
    /// Row kinds of the old layout's trees.
    static let treeKinds: Set<DerivedKind> = [.deepZoomTree, .iiifTree]

    /// Converts one image: its thumbnails and, when it had trees, a pack with the
    /// trees' tile size and overlap are made (or kept, when already made) by the
    /// run's own ``Deriver``, recorded, and only then are the old rows and folder dropped.
    public static func convert(_ hash: BlobHash, store: BlobStore, index: CacheIndex, threads: Int = 1) throws(CacheError) {
        let folder = CacheLayout.legacyFolder(hash) + "/"
        let rows: [DerivedRecord]
        do { rows = try index.derived(for: hash) } catch { throw .unusable(error.description) }
        let old = rows.filter { $0.path.hasPrefix(folder) }
        let current = rows.filter { !$0.path.hasPrefix(folder) }
        var options = DeriveOptions()
        options.thumbnailSizes = Array(Set(rows.filter { $0.kind == DerivedKind.thumbnail }.compactMap(\.size)))
        let hadTrees = old.contains { treeKinds.contains($0.kind) }
            || FileManager.default.fileExists(atPath: store.layout.path(oldDescriptor(hash)))
        options.tiles = hadTrees ? .eager : .none
        if let xml = try? store.readDerived(oldDescriptor(hash), limit: 64 << 10),
           let descriptor = DeepZoomDescriptor(String(decoding: xml, as: UTF8.self)) {
            options.tileSize = descriptor.tileSize
            options.overlap = descriptor.overlap
        }
        let deriver = Deriver(store: store, files: DerivedFiles(layout: store.layout), options: options,
                              threadsPerImage: max(1, threads))
        let outcome = deriver.derive(DeriveJob(hash: hash, wantsTiles: hadTrees, existing: current))
        if let error = outcome.error { throw .unusable("cannot convert \(hash.hex): \(error)") }
        do {
            try index.recordDerived(outcome.newRecords)
            try index.removeDerived(old)
        } catch { throw .unusable(error.description) }
        try? FileManager.default.removeItem(at: store.layout.url(CacheLayout.legacyFolder(hash)))
    }
}

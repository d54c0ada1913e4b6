import BlobStore
import Catalog
import Foundation
import Synchronization

/// The server's catalog, brought up to date when the manifests folder changes.
///
/// A run adds a file, which changes the folder's modification time and entry count,
/// so that pair is the key: a request after a new run reads just that run into the
/// catalog (an incremental ``PostCatalog/refresh()``), never all the manifests.
final class CatalogCache: Sendable {
    private let layout: CacheLayout
    private var cacheRoot: URL { layout.root }
    private let state = Mutex<(key: String, catalog: PostCatalog)?>(nil)
    /// One refresh at a time; requests that find the key changed wait for it.
    private let refreshing = Mutex<Void>(())

    /// The PDQ near-neighbour index, kept while the catalog has no newer hashes.
    private let perceptual = Mutex<PostCatalog.PerceptualIndex?>(nil)

    init(layout: CacheLayout) { self.layout = layout }

    /// The catalog's PDQ index, built on first use and again after runs add hashes
    /// (a cheap `max(id)` tells); requests meanwhile wait for the one build.
    func perceptualIndex(of catalog: PostCatalog) throws(CatalogError) -> PostCatalog.PerceptualIndex {
        let generation = try catalog.perceptualGeneration()
        if let index = perceptual.withLock({ $0 }), index.generation == generation { return index }
        return try refreshing.withLock { _ throws(CatalogError) -> PostCatalog.PerceptualIndex in
            if let index = perceptual.withLock({ $0 }), index.generation == generation { return index }
            let started = drops.load(ordering: .acquiring)
            let index = try catalog.perceptualIndex()
            // Not kept if a forget was seen while it was read: it may hold what went.
            if drops.load(ordering: .acquiring) == started { perceptual.withLock { $0 = index } }
            return index
        }
    }

    /// Counts ``dropPerceptualIndex()`` calls.
    private let drops = Atomic<Int>(0)

    /// Whether a PDQ index is held (tests).
    var holdsPerceptualIndex: Bool { perceptual.withLock { $0 != nil } }

    /// Lets go of the PDQ index: after a `forget` it holds the forgotten photos'
    /// hashes, and a kept file it maps is unlinked by the forget but stays on disk
    /// while mapped. The next duplicate search opens or builds it again.
    func dropPerceptualIndex() {
        drops.add(1, ordering: .releasing)
        perceptual.withLock { $0 = nil }
    }

    var catalog: PostCatalog {
        get throws(CatalogError) {
            let key = folderKey()
            if let current = state.withLock({ $0 }), current.key == key { return current.catalog }
            return try refreshing.withLock { _ throws(CatalogError) -> PostCatalog in
                if let current = state.withLock({ $0 }), current.key == key { return current.catalog }
                let catalog: PostCatalog
                if let open = state.withLock({ $0 })?.catalog { catalog = open } else { catalog = try PostCatalog(cacheRoot: cacheRoot) }
                // A catalog made anew numbers its hashes from 1 again: the PDQ index's
                // generation (their highest id) could match while the hashes differ.
                if try catalog.refresh().rebuilt { perceptual.withLock { $0 = nil } }
                state.withLock { $0 = (key, catalog) }
                return catalog
            }
        }
    }

    private func folderKey() -> String {
        let folder = layout.manifestsURL.path
        var info = stat()
        guard stat(folder, &info) == 0 else { return "none" }
        // The count as well as the time: two runs within one timestamp tick still differ.
        let count = (try? FileManager.default.contentsOfDirectory(atPath: folder).count) ?? 0
        return "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)-\(count)"
    }
}

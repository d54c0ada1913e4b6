import BlobStore
import Foundation
import Pipeline
import Synchronization

/// The merged manifests, re-read only when the manifests folder changes.
///
/// Reading every manifest on every `/api/tweets` request would cost tens of
/// milliseconds on a big cache; a new run adds a file, which changes the
/// folder's modification time and entry count, so that pair is the key.
final class CatalogCache: Sendable {
    private let cacheRoot: URL
    private let state = Mutex<(key: String, catalog: ManifestCatalog)?>(nil)

    init(cacheRoot: URL) { self.cacheRoot = cacheRoot }

    var catalog: ManifestCatalog {
        let folder = CacheLayout(root: cacheRoot).manifestsURL.path
        let attributes = try? FileManager.default.attributesOfItem(atPath: folder)
        let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let count = (try? FileManager.default.contentsOfDirectory(atPath: folder).count) ?? 0
        let key = "\(modified)-\(count)"
        if let current = state.withLock({ $0 }), current.key == key { return current.catalog }
        let fresh = ManifestCatalog.load(cacheRoot: cacheRoot)
        state.withLock { $0 = (key, fresh) }
        return fresh
    }
}

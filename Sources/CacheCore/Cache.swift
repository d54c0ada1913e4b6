public import BlobStore
public import Catalog
public import Foundation
public import Logging
public import ObjectStore
import Synchronization

/// A cache directory, opened once: its layout, blob store, index, derived files and
/// catalog of posts, and the bucket it shares when there is one.
///
/// The one way in, as GRDB's `DatabaseQueue` is the one object that owns its file:
/// opening migrates the layout once (``LayoutMigration``), builds the one
/// ``CacheLayout`` every part shares, and opens the index; the catalog opens on
/// first use, since a fetch that never reads it should not pay for it. Every
/// command and the server receive this rather than a URL to rebuild a view from.
public final class Cache: Sendable {
    public let layout: CacheLayout
    public let blobs: BlobStore
    public let index: CacheIndex
    public let derived: DerivedFiles
    /// The cache directory as one more ``CacheStorage``: `verify` judges its objects
    /// with the same ``ObjectAudit`` that judges a bucket's.
    public let folder: LocalStorage
    /// The bucket shared with other machines (`--store`), when there is one.
    public let store: (any CacheStorage)?
    /// What opening converted of a cache written before packs (nil: nothing to do).
    public let migration: LayoutMigration.Report?
    private let openedCatalog = Mutex<PostCatalog?>(nil)

    /// The cache directory.
    public var root: URL { layout.root }

    /// Whether opening may make a cache where there is none: a fetch does; a
    /// reading command does not, so a mistyped `--cache` says so rather than
    /// leaving an empty cache behind.
    public enum Creation: Sendable {
        case createIfMissing
        case mustExist
    }

    private init(layout: CacheLayout, blobs: BlobStore, index: CacheIndex, folder: LocalStorage, store: (any CacheStorage)?,
                 migration: LayoutMigration.Report?) {
        self.layout = layout
        self.folder = folder
        self.blobs = blobs
        self.index = index
        self.derived = DerivedFiles(layout: layout)
        self.store = store
        self.migration = migration
    }

    /// Opens the cache at `root`, converting a layout older than this build's first
    /// (logged to `logger`).
    public static func open(
        _ root: URL, store: (any CacheStorage)? = nil, creation: Creation = .createIfMissing,
        logger: Logger = Logger(label: "tweetcache.cache")
    ) throws(CacheError) -> Cache {
        let layout = layout(at: root)
        if creation == .mustExist {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: layout.root.path, isDirectory: &isDirectory), isDirectory.boolValue
            else { throw .unusable("no cache at \(layout.root.path)") }
        }
        let migration = LayoutMigration.runIfNeeded(layout: layout)
        if let migration { LayoutMigration.log(migration, to: logger) }
        do {
            let blobs = try BlobStore(layout: layout)
            let index = try CacheIndex(path: layout.indexURL)
            let folder = try LocalStorage(root: layout.root)
            return Cache(layout: layout, blobs: blobs, index: index, folder: folder, store: store, migration: migration)
        } catch let error as BlobStoreError {
            throw .unusable(error.description)
        } catch let error as StoreError {
            throw .unusable(error.description)
        } catch {
            throw .unusable(String(describing: error))
        }
    }

    /// The layout of a cache that cannot be opened for writing (a read-only mount
    /// `serve` still answers from), read as it is: nothing migrated or created.
    public static func readOnlyLayout(_ root: URL) -> CacheLayout { layout(at: root) }

    /// The one place a ``CacheLayout`` is made from a directory: everything else
    /// receives this one, through the ``Cache``.
    private static func layout(at root: URL) -> CacheLayout { CacheLayout(root: root) }

    /// The catalog of posts, opened on first use and then shared. `refreshed`
    /// brings it up to date with the manifests first (only the runs it has not read).
    public func catalog(refreshed: Bool = true) throws(CacheError) -> PostCatalog {
        if let open = openedCatalog.withLock({ $0 }) { return open }
        do {
            let catalog = refreshed ? try PostCatalog.open(cacheRoot: root).catalog : try PostCatalog(cacheRoot: root)
            return openedCatalog.withLock { held in
                if let already = held { return already }
                held = catalog
                return catalog
            }
        } catch {
            throw .unusable(error.description)
        }
    }
}

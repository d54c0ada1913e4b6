import BlobStore
import Catalog
import Foundation
import Logging
import Pipeline

/// A cache opened for reading back: its blobs, its index and its catalog of posts.
///
/// Opening brings the catalog up to date with the manifests (only the runs it has
/// not read), so every command answers from indexed queries, never by reading all
/// the manifests. Opening does not create a cache where there is none: a mistyped
/// `--cache` should say so, not leave an empty cache behind.
public struct CacheSnapshot: Sendable {
    public let root: URL
    public let store: BlobStore
    public let index: CacheIndex
    public let catalog: PostCatalog

    public init(root: URL) throws(InspectError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .cache("no cache at \(root.path)")
        }
        // A cache of the layout before packs is converted before anything reads it.
        LayoutMigration.runIfNeeded(cacheRoot: root).map { LayoutMigration.log($0, to: Logger(label: "tweetcache.inspect")) }
        do {
            store = try BlobStore(root: root)
            index = try CacheIndex(store: store)
        } catch {
            throw .cache(error.description)
        }
        self.root = store.root
        do {
            catalog = try PostCatalog.open(cacheRoot: store.root).catalog
        } catch {
            throw .cache(error.description)
        }
    }

    public var derivedFiles: DerivedFiles { DerivedFiles(cacheRoot: root) }

    /// Manifest files that could not be read (each names the file and why).
    public var manifestProblems: [String] { (try? catalog.problems()) ?? [] }

    /// Every place a post uses `hash`, posts before included posts, newest first.
    public func references(to hash: BlobHash) -> [ImageReference] {
        (try? catalog.references(to: hash.hex)) ?? []
    }
}

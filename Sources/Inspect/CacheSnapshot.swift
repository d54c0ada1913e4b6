public import BlobStore
public import Catalog
import Foundation
import Logging
public import CacheCore

/// A cache opened for reading back: its blobs, its index and its catalog of posts.
///
/// Opening brings the catalog up to date with the manifests (only the runs it has
/// not read), so every command answers from indexed queries, never by reading all
/// the manifests. Opening does not create a cache where there is none: a mistyped
/// `--cache` should say so, not leave an empty cache behind.
public struct CacheSnapshot: Sendable {
    /// The cache, opened once; everything below is its.
    public let cache: Cache
    public var root: URL { cache.root }
    public var store: BlobStore { cache.blobs }
    public var index: CacheIndex { cache.index }
    public let catalog: PostCatalog

    public init(root: URL) throws(InspectError) {
        do {
            // A cache of the layout before packs is converted before anything reads it.
            cache = try Cache.open(root, creation: .mustExist, logger: Logger(label: "tweetcache.inspect"))
            catalog = try cache.catalog()
        } catch {
            throw .cache(error.unusableReason)
        }
    }

    public var derivedFiles: DerivedFiles { cache.derived }

    /// Manifest files that could not be read (each names the file and why).
    public var manifestProblems: [String] { (try? catalog.problems()) ?? [] }

    /// Every place a post uses `hash`, posts before included posts, newest first.
    public func references(to hash: BlobHash) -> [ImageReference] {
        (try? catalog.references(to: hash.hex)) ?? []
    }
}

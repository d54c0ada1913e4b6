import CacheCore
import Catalog
import MediaFetch
import BlobStore
public import Foundation
import Imaging
public import ObjectStore

extension StoreMaintenance {
    // MARK: - Stats

    public struct Stats: Sendable, Codable, Equatable {
        public var location: String
        public var originals = 0
        public var originalBytes = 0
        public var packs = 0
        public var packBytes = 0
        public var thumbnails = 0
        public var thumbnailBytes = 0
        public var manifests = 0
        public var other = 0

        enum CodingKeys: String, CodingKey {
            case location, originals, packs, thumbnails, manifests, other
            case originalBytes = "original_bytes"
            case packBytes = "pack_bytes"
            case thumbnailBytes = "thumbnail_bytes"
        }

        public var text: String {
            """
            store      \(location)
            originals  \(originals) (\(ByteCount.format(originalBytes)))
            packs      \(packs) (\(ByteCount.format(packBytes)))
            thumbnails \(thumbnails) (\(ByteCount.format(thumbnailBytes)))
            manifests  \(manifests)\(other > 0 ? "\nother      \(other) objects TweetCache did not write" : "")

            """
        }
    }

    /// Counts and sizes of what the bucket holds, from one listing.
    public func stats() async throws(StoreError) -> Stats {
        var stats = Stats(location: storage.address)
        for object in try await storage.list("") {
            switch CacheKey(path: object.key)?.kind {
            case .original:
                stats.originals += 1
                stats.originalBytes += object.size
            case .pack:
                stats.packs += 1
                stats.packBytes += object.size
            case .thumbnail:
                stats.thumbnails += 1
                stats.thumbnailBytes += object.size
            case .manifest:
                stats.manifests += 1
            default:
                stats.other += 1
            }
        }
        return stats
    }

}

public import BlobStore

/// What a cache holds, counted by kind (``CacheKey``) the same way wherever it
/// lies: `stats --store` counts a bucket's listing with it, `stats` the cache
/// directory's files, so the two never disagree on what an object is.
public struct ObjectTally: Sendable, Codable, Equatable {
    /// Where it was counted: `s3://bucket/prefix`, `file:///srv/cache`, a cache folder.
    public var location: String
    public var originals = 0
    public var originalBytes = 0
    public var packs = 0
    public var packBytes = 0
    public var thumbnails = 0
    public var thumbnailBytes = 0
    public var manifests = 0
    /// Objects TweetCache did not write (or not under these names).
    public var other = 0

    enum CodingKeys: String, CodingKey {
        case location, originals, packs, thumbnails, manifests, other
        case originalBytes = "original_bytes"
        case packBytes = "pack_bytes"
        case thumbnailBytes = "thumbnail_bytes"
    }

    public init(location: String) { self.location = location }

    /// Counts the object at `path` (cache-relative) of `size` bytes.
    public mutating func add(_ path: String, size: Int) {
        add(CacheKey(path: path)?.kind, size: size)
    }

    /// Counts an object of `kind` (nil: one TweetCache did not write) of `size` bytes.
    public mutating func add(_ kind: CacheKey.Kind?, size: Int) {
        switch kind {
        case .original:
            originals += 1
            originalBytes += size
        case .pack:
            packs += 1
            packBytes += size
        case .thumbnail:
            thumbnails += 1
            thumbnailBytes += size
        case .manifest:
            manifests += 1
        default:
            other += 1
        }
    }

    /// Counts every path and size of `objects`.
    public static func counting(_ objects: some Sequence<(path: String, size: Int)>, at location: String) -> ObjectTally {
        var tally = ObjectTally(location: location)
        for object in objects { tally.add(object.path, size: object.size) }
        return tally
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

/// One thing a cache holds, named by what it is rather than by where it lies.
///
/// A cache directory and a bucket hold the same objects under the same relative
/// paths; this type is the one rendering of a key to that path (``path``) and the
/// one parse back (``init(path:)``), so no code reads meaning out of a path string
/// by prefix or suffix. The parse is exact: a path TweetCache would not write
/// (an upper-case hash, a shard that is not the hash's, `thumb-0`, a hidden
/// manifest where a run's is expected) is nil, which is how names read from a
/// stranger's manifest or bucket listing are refused before anything is read or
/// written under them.
public enum CacheKey: Sendable, Hashable {
    /// The bytes as fetched, named by their SHA-256.
    case original(BlobHash)
    /// The zoom pyramid of an original, all levels in one file (docs/pack-format.md).
    case pack(BlobHash)
    /// A thumbnail of an original, `size` pixels on the long edge (1 to 9999).
    case thumbnail(BlobHash, size: Int, format: ThumbnailFormat)
    /// The folder the layout before packs kept per image; read once and converted.
    case legacyFolder(BlobHash)
    /// A run's manifest, `<name>` ending in `.json` and not hidden.
    case manifest(String)
    /// A manifest still being written (`manifests/.partial-<hex>.json.zst`): held by its
    /// writer's lock while the run lives, swept by `gc` once it does not.
    case partialManifest(String)
    /// A running fetch's lease in a bucket (`leases/<its partial manifest's name>`).
    case lease(String)
    /// A blob `verify --repair` found corrupt and moved aside.
    case quarantined(BlobHash)
    /// The index database.
    case index

    /// How a thumbnail is encoded: JPEG, or PNG for an image with transparency.
    public enum ThumbnailFormat: String, Sendable, Hashable, CaseIterable {
        case jpeg = "jpg"
        case png
    }

    /// What kind of object a key names, for tallies and for choosing a check.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case original, pack, thumbnail, legacyFolder, manifest, partialManifest, lease, quarantined, index
    }

    public var kind: Kind {
        switch self {
        case .original: .original
        case .pack: .pack
        case .thumbnail: .thumbnail
        case .legacyFolder: .legacyFolder
        case .manifest: .manifest
        case .partialManifest: .partialManifest
        case .lease: .lease
        case .quarantined: .quarantined
        case .index: .index
        }
    }

    /// The original this object was made from or is, when it belongs to one.
    public var owner: BlobHash? {
        switch self {
        case .original(let hash), .pack(let hash), .thumbnail(let hash, _, _), .legacyFolder(let hash),
             .quarantined(let hash): hash
        case .manifest, .partialManifest, .lease, .index: nil
        }
    }

    /// Whether a bucket shares this object between machines: originals, packs and
    /// thumbnails (manifests and leases go through their own paths).
    public var isShared: Bool {
        switch self {
        case .original, .pack, .thumbnail: true
        default: false
        }
    }

    /// The path below a cache's root, and the key below a bucket's prefix.
    public var path: String {
        switch self {
        case .original(let hash): "\(CacheLayout.blobsFolder)/\(hash.shard)/\(hash.hex)"
        case .pack(let hash): "\(CacheLayout.derivedShard(hash))/\(hash.hex)\(CacheLayout.packSuffix)"
        case .thumbnail(let hash, let size, let format):
            "\(CacheLayout.derivedShard(hash))/\(hash.hex).thumb-\(size).\(format.rawValue)"
        case .legacyFolder(let hash): "\(CacheLayout.derivedShard(hash))/\(hash.hex)"
        case .manifest(let name), .partialManifest(let name): "\(CacheLayout.manifestsFolder)/\(name)"
        case .lease(let name): "\(CacheLayout.leasesFolder)/\(name)"
        case .quarantined(let hash): "\(CacheLayout.quarantineFolder)/\(hash.hex)"
        case .index: CacheLayout.indexFile
        }
    }

    /// The key `path` names, or nil when it is not exactly a path ``path`` renders.
    public init?(path: String) {
        // Over the bytes in place: `sync` parses every thumbnail path of a million
        // posts, and splitting each into substrings cost more than reading the posts.
        var path = path
        guard let key = path.withUTF8(Self.parse) else { return nil }
        self = key
    }

    /// Whether `name` may be a run's manifest: `<something>.json.zst` (as runs write
    /// them) or `<something>.json` (as they did, and as a reader may put one), not
    /// hidden, one path component.
    public static func isManifestName(_ name: some StringProtocol) -> Bool {
        !name.hasPrefix(".") && !name.contains("/") && manifestStem(name).map { !$0.isEmpty } == true
    }

    /// Whether `name` is a partial manifest's: `.partial-<something>.json.zst` (or `.json`).
    public static func isPartialManifestName(_ name: some StringProtocol) -> Bool {
        name.hasPrefix(partialPrefix) && !name.contains("/")
            && manifestStem(name).map { $0.count > partialPrefix.count } == true
    }

    /// How runs' manifests end: compact JSON in seekable zstd.
    public static let manifestSuffix = ".json.zst"

    /// A manifest's name without its `.json.zst` or `.json`: the run's stamp (and
    /// tag), as pages and documents name the run. Nil for any other name.
    public static func manifestStem<S: StringProtocol>(_ name: S) -> S.SubSequence? {
        if name.hasSuffix(manifestSuffix) { return name.dropLast(manifestSuffix.count) }
        if name.hasSuffix(".json") { return name.dropLast(5) }
        return nil
    }

    /// How a manifest being written is named until it is whole.
    public static let partialPrefix = ".partial-"

    private static func parse(_ u: UnsafeBufferPointer<UInt8>) -> CacheKey? {
        func has(_ text: StaticString, at: Int) -> Bool {
            let count = text.utf8CodeUnitCount
            guard at + count <= u.count else { return false }
            return text.withUTF8Buffer { t in (0..<count).allSatisfy { u[at + $0] == t[$0] } }
        }
        /// The hash at `u[at..<at+64]`, when its first two hex digits are the shard at `shard`.
        func hash(at: Int, shard: Int?) -> BlobHash? {
            guard at + 64 <= u.count else { return nil }
            if let shard, u[shard] != u[at] || u[shard + 1] != u[at + 1] { return nil }
            return BlobHash(hexUTF8: UnsafeBufferPointer(rebasing: u[at..<(at + 64)]))
        }
        func rest(from: Int) -> String { String(decoding: UnsafeBufferPointer(rebasing: u[from...]), as: UTF8.self) }

        // blobs/sha256/ab/<64 hex>
        if has("blobs/sha256/", at: 0) {
            guard u.count == 13 + 3 + 64, u[15] == UInt8(ascii: "/"), let hash = hash(at: 16, shard: 13) else { return nil }
            return .original(hash)
        }
        // derived/ab/<64 hex>[.pack | .thumb-<1 to 4 digits>.jpg|png]
        if has("derived/", at: 0) {
            guard u.count >= 8 + 3 + 64, u[10] == UInt8(ascii: "/"), let hash = hash(at: 11, shard: 8) else { return nil }
            let end = 11 + 64
            if u.count == end { return .legacyFolder(hash) }
            if has(".pack", at: end) { return u.count == end + 5 ? .pack(hash) : nil }
            guard has(".thumb-", at: end) else { return nil }
            var cursor = end + 7, size = 0
            while cursor < u.count, (0x30...0x39).contains(u[cursor]), cursor - (end + 7) < 5 {
                size = size * 10 + Int(u[cursor] - 0x30)
                cursor += 1
            }
            let digits = cursor - (end + 7)
            guard (1...4).contains(digits), u[end + 7] != UInt8(ascii: "0"), u.count == cursor + 4 else { return nil }
            if has(".jpg", at: cursor) { return .thumbnail(hash, size: size, format: .jpeg) }
            if has(".png", at: cursor) { return .thumbnail(hash, size: size, format: .png) }
            return nil
        }
        if has("manifests/", at: 0) {
            let name = rest(from: 10)
            if isManifestName(name) { return .manifest(name) }
            if isPartialManifestName(name) { return .partialManifest(name) }
            return nil
        }
        if has("leases/", at: 0) {
            let name = rest(from: 7)
            return manifestStem(name).map { !$0.isEmpty } == true && !name.contains("/") && !name.hasPrefix(".write-check-")
                ? .lease(name) : nil
        }
        if has("quarantine/", at: 0) {
            guard u.count == 11 + 64, let hash = hash(at: 11, shard: nil) else { return nil }
            return .quarantined(hash)
        }
        if u.count == CacheLayout.indexFile.utf8.count, has("index.sqlite", at: 0) { return .index }
        return nil
    }
}

extension CacheKey: CustomStringConvertible {
    public var description: String { path }
}

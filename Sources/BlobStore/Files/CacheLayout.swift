public import Foundation

/// Where everything lives in a cache, as paths relative to its root.
///
/// The one place that knows the layout: the store, the pipeline, the tile
/// server, `verify`, `gc`, `stats` and `export` all ask it rather than
/// spelling paths themselves, so a second backend (object storage, whose keys
/// are these same relative paths) or a layout change touches one type.
///
/// ```
/// blobs/sha256/<2 hex>/<64 hex>           originals, named by their SHA-256
/// derived/<2 hex>/<64 hex>.pack           the zoom pyramid, one file (docs/pack-format.md)
/// derived/<2 hex>/<64 hex>.thumb-150.jpg  thumbnails (.png for images with alpha)
/// derived/<2 hex>/<64 hex>/               the old layout (per-tile trees), read and converted
/// manifests/<UTC>.json                    one per run
/// index.sqlite                            URL → hash, derived files, failures
/// tmp/                                    files being written (swept on open)
/// quarantine/<64 hex>                     blobs `verify --repair` found corrupt
/// objects/…                               with `--store`: the bounded local copy of the
///                                         bucket's objects (same paths; a range as path@offset+length)
/// ```
///
/// A bucket (`--store s3://bucket/prefix`) holds `blobs/`, `derived/` and
/// `manifests/` under these same paths below its prefix.
public struct CacheLayout: Sendable, Hashable {
    /// The cache directory.
    public let root: URL

    public init(root: URL) {
        self.root = URL(fileURLWithPath: root.standardizedFileURL.path, isDirectory: true)
    }

    public static let blobsFolder = "blobs/sha256"
    public static let derivedFolder = "derived"
    public static let manifestsFolder = "manifests"
    public static let temporaryFolder = "tmp"
    public static let quarantineFolder = "quarantine"
    /// In a bucket: one small object per run uploading (`<manifest name>`), which
    /// `gc --store` respects.
    public static let leasesFolder = "leases"
    /// With object storage: the read-through copy of the bucket's objects.
    public static let objectsFolder = "objects"
    public static let indexFile = "index.sqlite"
    /// File name ending of a pyramid pack.
    public static let packSuffix = ".pack"

    /// The original bytes of `hash`.
    public static func blob(_ hash: BlobHash) -> String { "\(blobsFolder)/\(hash.shard)/\(hash.hex)" }
    /// The folder of one shard of derived files.
    public static func derivedShard(_ hash: BlobHash) -> String { "\(derivedFolder)/\(hash.shard)" }
    /// The zoom pyramid of `hash`, all levels in one file.
    public static func pack(_ hash: BlobHash) -> String { "\(derivedShard(hash))/\(hash.hex)\(packSuffix)" }
    /// A thumbnail of `hash`, `size` pixels on the long edge.
    public static func thumbnail(_ hash: BlobHash, size: Int, png: Bool) -> String {
        "\(derivedShard(hash))/\(hash.hex).thumb-\(size).\(png ? "png" : "jpg")"
    }
    /// Every file derived from `hash` in the current layout is named with this prefix.
    public static func derivedPrefix(_ hash: BlobHash) -> String { "\(derivedShard(hash))/\(hash.hex)." }
    /// The folder the old layout kept per image (thumbnails, Deep Zoom and IIIF
    /// trees); read while it exists and removed once converted.
    public static func legacyFolder(_ hash: BlobHash) -> String { "\(derivedShard(hash))/\(hash.hex)" }
    /// A run's manifest.
    public static func manifest(_ name: String) -> String { "\(manifestsFolder)/\(name)" }
    /// Whether `path` is a manifest as ``manifest(_:)`` names one: a `.json` file
    /// directly in `manifests/`, its name not hidden.
    public static func isManifestPath(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == manifestsFolder, let name = parts.last else { return false }
        return name.hasSuffix(".json") && !name.hasPrefix(".") && name.count > 5
    }
    /// Where `verify --repair` moves a corrupt blob.
    public static func quarantined(_ hash: BlobHash) -> String { "\(quarantineFolder)/\(hash.hex)" }

    /// The hash a derived file name (current or old layout) belongs to, from
    /// the name alone: `<64 hex>`, `<64 hex>.pack`, `<64 hex>.thumb-150.jpg`.
    public static func derivedOwner(fileName: String) -> BlobHash? {
        BlobHash(hex: String(fileName.prefix(64)))
            .flatMap { fileName.count == 64 || fileName.dropFirst(64).first == "." ? $0 : nil }
    }

    /// Whether `path` is exactly one of the files a bucket shares, as this type names
    /// them: an original (`blobs/sha256/ab/<64 hex>`), a pack or a thumbnail of one
    /// (`derived/ab/<64 hex>.pack`, `….thumb-150.jpg`). Paths read from a manifest a
    /// stranger may have written are checked with this before anything is read,
    /// written or uploaded under them: not the index, not another folder.
    public static func isSharedObject(_ path: String) -> Bool {
        // Over the bytes in place: `sync` checks every thumbnail path of a million
        // posts, and splitting each into substrings cost more than reading the posts.
        var path = path
        return path.withUTF8(isSharedObject(utf8:))
    }

    private static func isSharedObject(utf8 u: UnsafeBufferPointer<UInt8>) -> Bool {
        /// Whether `u[at...]` begins with `text`.
        func has(_ text: StaticString, at: Int) -> Bool {
            let count = text.utf8CodeUnitCount
            guard at + count <= u.count else { return false }
            return text.withUTF8Buffer { t in (0..<count).allSatisfy { u[at + $0] == t[$0] } }
        }
        /// Whether `u[at..<at+64]` is a hash in lower-case hex whose first two are the shard at `shard`.
        func hash(at: Int, shard: Int) -> Bool {
            guard at + 64 <= u.count, u[shard] == u[at], u[shard + 1] == u[at + 1] else { return false }
            return u[at..<(at + 64)].allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        }
        // blobs/sha256/ab/<64 hex>
        if has("blobs/sha256/", at: 0) {
            return u.count == 13 + 3 + 64 && u[15] == UInt8(ascii: "/") && hash(at: 16, shard: 13)
        }
        // derived/ab/<64 hex>.pack or derived/ab/<64 hex>.thumb-<1 to 4 digits>.jpg|png
        guard has("derived/", at: 0), u.count > 8 + 3 + 64, u[10] == UInt8(ascii: "/"), hash(at: 11, shard: 8) else {
            return false
        }
        let rest = 11 + 64
        if has(".pack", at: rest) { return u.count == rest + 5 }
        guard has(".thumb-", at: rest) else { return false }
        var end = rest + 7
        while end < u.count, (0x30...0x39).contains(u[end]) { end += 1 }
        let digits = end - (rest + 7)
        return (1...4).contains(digits) && u.count == end + 4 && (has(".jpg", at: end) || has(".png", at: end))
    }

    /// `relative` as a file URL under the root.
    public func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }
    /// `relative` as a file-system path under the root.
    public func path(_ relative: String) -> String { root.path + "/" + relative }

    public var blobsURL: URL { url(Self.blobsFolder) }
    public var derivedURL: URL { url(Self.derivedFolder) }
    public var manifestsURL: URL { url(Self.manifestsFolder) }
    public var temporaryURL: URL { url(Self.temporaryFolder) }
    public var quarantineURL: URL { url(Self.quarantineFolder) }
    public var objectsURL: URL { url(Self.objectsFolder) }
    public var indexURL: URL { url(Self.indexFile) }
}

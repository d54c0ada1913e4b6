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
    public static func blob(_ hash: BlobHash) -> String { CacheKey.original(hash).path }
    /// The folder of one shard of derived files.
    public static func derivedShard(_ hash: BlobHash) -> String { "\(derivedFolder)/\(hash.shard)" }
    /// The zoom pyramid of `hash`, all levels in one file.
    public static func pack(_ hash: BlobHash) -> String { CacheKey.pack(hash).path }
    /// A thumbnail of `hash`, `size` pixels on the long edge.
    public static func thumbnail(_ hash: BlobHash, size: Int, png: Bool) -> String {
        CacheKey.thumbnail(hash, size: size, format: png ? .png : .jpeg).path
    }
    /// Every file derived from `hash` in the current layout is named with this prefix.
    public static func derivedPrefix(_ hash: BlobHash) -> String { "\(derivedShard(hash))/\(hash.hex)." }
    /// The folder the old layout kept per image (thumbnails, Deep Zoom and IIIF
    /// trees); read while it exists and removed once converted.
    public static func legacyFolder(_ hash: BlobHash) -> String { CacheKey.legacyFolder(hash).path }
    /// A run's manifest.
    public static func manifest(_ name: String) -> String { CacheKey.manifest(name).path }
    /// Where `verify --repair` moves a corrupt blob.
    public static func quarantined(_ hash: BlobHash) -> String { CacheKey.quarantined(hash).path }

    /// The hash a file in the derived area belongs to, from its name alone: a pack,
    /// thumbnail or old-layout folder (`<64 hex>`, `<64 hex>.pack`), and also what
    /// an interrupted write left beside them (`<64 hex>.thumb-150.jpg.tmp-42`), so
    /// `gc` frees those with their image. ``CacheKey/init(path:)`` says what a file is.
    public static func derivedOwner(fileName: String) -> BlobHash? {
        BlobHash(hex: String(fileName.prefix(64)))
            .flatMap { fileName.count == 64 || fileName.dropFirst(64).first == "." ? $0 : nil }
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

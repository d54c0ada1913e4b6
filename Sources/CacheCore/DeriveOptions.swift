import Foundation
import Imaging

/// When zoom tiles are made.
public enum TileMode: String, Sendable, CaseIterable {
    /// With the thumbnails, during the run.
    case eager
    /// On first request, by the tile server; the run makes thumbnails only.
    case lazy
    /// Never.
    case none
}

/// What the pipeline derives from cached images: thumbnails for every image (the
/// list cells of a viewer), zoom tiles for media (not avatars).
public struct DeriveOptions: Sendable {
    /// Long-edge sizes of the thumbnails, in pixels.
    public var thumbnailSizes: [Int] = [150, 600]
    /// JPEG quality of thumbnails and tiles.
    public var quality: Int = 85
    public var tiles: TileMode = .eager
    public var tileSize: Int = 256
    /// Deep Zoom tile overlap. With 0 (the default) the pack's tiles serve IIIF
    /// too; with overlap, IIIF tiles are cut on request.
    public var overlap: Int = 0
    /// Images claiming more pixels are refused before any allocation.
    public var maxPixels: Int = 100_000_000
    /// Whether every image gets a PDQ perceptual hash (for `dupes`, `match` and the
    /// manifest's `pdq`): computed from a decode the derivation does anyway, or one
    /// full-size decode for an image with nothing else to make.
    public var perceptualHashes = true
    /// Images derived at once; each uses one core.
    public var concurrency: Int = ProcessInfo.processInfo.activeProcessorCount

    public init() {}

    /// Whether an image this size gets a pyramid pack. One that fits in a 2x2
    /// block of tiles does not: the server cuts its few tiles from the original
    /// on request in about a millisecond, and a pack would only store the image
    /// again (on a cache of mostly 320x240 tweet photos, more than the originals).
    public func wantsPyramid(width: Int, height: Int) -> Bool {
        Self.wantsPyramid(width: width, height: height, tileSize: tileSize)
    }

    /// ``wantsPyramid(width:height:)`` for a given tile size (the server's).
    public static func wantsPyramid(width: Int, height: Int, tileSize: Int) -> Bool {
        max(width, height) > 2 * tileSize
    }

    /// The thumbnail sizes an image this size gets: only those smaller than
    /// its long edge, since a thumbnail as large as the image is the image again.
    public func thumbnailSizes(width: Int, height: Int) -> [Int] {
        thumbnailSizes.filter { $0 < max(width, height) }
    }
}

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
    public var layouts: Set<PyramidLayout> = [.deepZoom, .iiif3]
    public var tileSize: Int = 256
    /// Deep Zoom tile overlap (IIIF tiles never overlap).
    public var overlap: Int = 0
    /// Where the tile server will serve IIIF images; `info.json` must name its own URI.
    public var iiifBaseURL: String = "http://127.0.0.1:8080/iiif/3"
    /// Images claiming more pixels are refused before any allocation.
    public var maxPixels: Int = 100_000_000
    /// Images derived at once; each uses one core.
    public var concurrency: Int = ProcessInfo.processInfo.activeProcessorCount

    public init() {}
}

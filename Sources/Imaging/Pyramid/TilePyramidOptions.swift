#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a zoom pyramid is cut, encoded and named.
public struct TilePyramidOptions: Sendable, Hashable {
    /// Tile width and height: 256 suits IIIF viewers, 254 (+1 overlap = 256)
    /// is the classic Deep Zoom choice.
    public var tileSize: Int
    /// Deep Zoom only: pixels each tile repeats from its neighbours, so
    /// viewers can blend seams; 0 or 1 in practice. IIIF tiles never overlap.
    public var overlap: Int
    /// JPEG quality, 1-100.
    public var quality: Int
    /// How tiles are encoded: JPEG (transparency composited over white), or PNG,
    /// which keeps alpha at every level (``PyramidPack/TileFormat/suited(to:)``).
    public var format: PyramidPack.TileFormat
    /// IIIF only: the image's base URI, written as `id` in `info.json`;
    /// viewers build every tile URL from it, so it must be where the tree is served.
    public var iiifID: String?
    /// Deep Zoom only: the descriptor is `<name>.dzi` and the tiles are in `<name>_files`.
    public var deepZoomName: String
    /// Average in linear light instead of sRGB when halving levels: keeps
    /// fine bright-on-dark detail from darkening when zoomed out. Off by
    /// default, like libvips.
    public var linearLight: Bool
    /// Threads encoding the tiles of one level: nil uses every core; 1 keeps
    /// the whole build on the calling thread, for callers that instead build
    /// several pyramids in parallel.
    public var threads: Int?

    public init(
        tileSize: Int = 256, overlap: Int = 0, quality: Int = 85, format: PyramidPack.TileFormat = .jpeg,
        iiifID: String? = nil, deepZoomName: String = "image", linearLight: Bool = false, threads: Int? = nil
    ) {
        self.tileSize = tileSize
        self.overlap = overlap
        self.quality = quality
        self.format = format
        self.iiifID = iiifID
        self.deepZoomName = deepZoomName
        self.linearLight = linearLight
        self.threads = threads
    }

    /// Threads to use for one level's tiles.
    var workerCount: Int { threads ?? max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Refuses options that would fail halfway through a build.
    func validate(for layouts: Set<PyramidLayout>) throws(ImagingError) {
        guard (1...100).contains(quality) else {
            throw .invalidArgument("JPEG quality must be 1-100, got \(quality)")
        }
        if let threads, threads < 1 {
            throw .invalidArgument("threads must be at least 1, got \(threads)")
        }
        if layouts.contains(.deepZoom) {
            guard !deepZoomName.isEmpty, deepZoomName != ".", deepZoomName != "..",
                  !deepZoomName.contains("/"), !deepZoomName.contains("\0") else {
                throw .invalidArgument("Deep Zoom name must be a plain file name, got \"\(deepZoomName)\"")
            }
        }
        if layouts.contains(.iiif3) {
            guard let iiifID, !iiifID.isEmpty else {
                throw .invalidArgument("a IIIF pyramid needs the image's base URI (iiifID) for info.json")
            }
        }
    }
}

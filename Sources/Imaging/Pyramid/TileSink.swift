#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One pyramid layout as the builder sees it: which files hold each tile,
/// and the descriptor to write once every tile exists.
///
/// Both layouts cut the same grid from the same levels, so the builder asks
/// every sink about each grid cell and encodes each distinct rectangle once,
/// even when Deep Zoom and IIIF want the same pixels under different names.
protocol TileSink: Sendable {
    /// The rectangle of `level` (in its own pixel coordinates) and the
    /// absolute paths it is written to, or nil when this layout has no such tile.
    func target(level: PyramidLevel, column: Int, row: Int) -> TileTarget?
    /// Writes the descriptor file; returns its size in bytes.
    func writeDescriptor() throws(ImagingError) -> Int
}

/// The pixels one layout wants for one grid cell, and where they go.
struct TileTarget: Sendable, Hashable {
    var rect: TileRect
    var paths: [String]
    /// The tile's number in a ``PyramidPack`` being assembled, for the pack sink.
    var packSlot: Int? = nil
}

extension URL {
    /// The file-system path without a trailing slash, for building child paths by concatenation.
    var pyramidRootPath: String {
        var path = self.path(percentEncoded: false)
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
    }
}

/// One level of a tile pyramid: the whole image scaled by `1 / scaleFactor`.
///
/// Sizes round up (`ceil(width / scaleFactor)`), which is what repeated 2x
/// reduction produces, what the Deep Zoom format defines and what IIIF
/// clients such as OpenSeadragon compute, so every party agrees on each
/// level's edge tiles.
public struct PyramidLevel: Sendable, Hashable {
    /// Deep Zoom level number: 0 is 1x1, the highest is full resolution.
    public var index: Int
    /// Width of the whole level in pixels.
    public var width: Int
    /// Height of the whole level in pixels.
    public var height: Int
    /// Tiles across: `ceil(width / tileSize)`.
    public var columns: Int
    /// Tiles down: `ceil(height / tileSize)`.
    public var rows: Int
    /// How many full-resolution pixels one level pixel spans per side (a power of two).
    public var scaleFactor: Int

    public init(index: Int, width: Int, height: Int, columns: Int, rows: Int, scaleFactor: Int) {
        self.index = index
        self.width = width
        self.height = height
        self.columns = columns
        self.rows = rows
        self.scaleFactor = scaleFactor
    }

    /// Number of tiles in the level.
    public var tileCount: Int { columns * rows }
}

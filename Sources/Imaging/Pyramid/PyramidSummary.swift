/// What a pyramid build wrote, for logs, manifests and benchmarks.
public struct PyramidSummary: Sendable, Hashable {
    /// Full-resolution width of the image.
    public var width: Int
    /// Full-resolution height of the image.
    public var height: Int
    /// Levels built, 1x1 and full resolution included.
    public var levels: Int
    /// Tile files written (a tile saved under two names counts twice), descriptors excluded.
    public var tiles: Int
    /// Bytes written, tiles and descriptors together.
    public var bytes: Int

    public init(width: Int, height: Int, levels: Int, tiles: Int, bytes: Int) {
        self.width = width
        self.height = height
        self.levels = levels
        self.tiles = tiles
        self.bytes = bytes
    }
}

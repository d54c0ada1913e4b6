/// Which tile: a pyramid level and a column and row within it.
///
/// Levels count Deep Zoom's way, from 0 (one pixel) up to
/// ``PyramidGeometry/maxLevel`` (full resolution), for both layouts, so a tile
/// server can map Deep Zoom and IIIF requests onto the same tile maker.
public struct TileCoordinate: Sendable, Hashable, CustomStringConvertible {
    public var level: Int
    public var column: Int
    public var row: Int

    public init(level: Int, column: Int, row: Int) {
        self.level = level
        self.column = column
        self.row = row
    }

    public var description: String { "level \(level) tile \(column)_\(row)" }
}

/// Where every tile of a zoom pyramid lies, computed from the image size alone.
///
/// Pure arithmetic with no pixels involved, so the same answers serve the
/// builder that writes a pyramid, a tile server that maps URLs to tiles, and
/// tests that check the Deep Zoom rules:
/// - `maxLevel = ceil(log2(max(width, height)))`; level `L` is the image
///   scaled by `2^(maxLevel - L)`, sizes rounded up, down to 1x1 at level 0;
/// - tiles are `tileSize` square, the last column and row cropped (never padded);
/// - each tile extends `overlap` pixels into its neighbours on interior edges
///   only, as OpenSeadragon's Deep Zoom tile source expects.
///
/// IIIF views of the same levels are in `PyramidGeometry+IIIF.swift`.
public struct PyramidGeometry: Sendable, Hashable {
    /// Tile sizes accepted: 1-8192, like libvips, which keeps every tile far
    /// inside JPEG's 65500-pixel limit even with overlap.
    public static let tileSizes: ClosedRange<Int> = 1...8192
    /// Largest width or height accepted, so that no coordinate computation can overflow.
    public static let maxDimension = Int(Int32.max)

    /// Full-resolution width in pixels.
    public let width: Int
    /// Full-resolution height in pixels.
    public let height: Int
    /// Width and height of a full (non-edge) tile, overlap excluded.
    public let tileSize: Int
    /// Pixels each tile shares with each neighbour (Deep Zoom only; IIIF tiles never overlap).
    public let overlap: Int
    /// The full-resolution level: `ceil(log2(max(width, height)))`.
    public let maxLevel: Int

    /// Refuses sizes no image can have and overlaps that would swallow whole tiles.
    public init(width: Int, height: Int, tileSize: Int = 256, overlap: Int = 0) throws(ImagingError) {
        guard (1...Self.maxDimension).contains(width), (1...Self.maxDimension).contains(height) else {
            throw .invalidArgument("pyramid image size must be 1 to \(Self.maxDimension) pixels per side, got \(width)x\(height)")
        }
        guard Self.tileSizes.contains(tileSize) else {
            throw .invalidArgument("tile size must be \(Self.tileSizes.lowerBound)-\(Self.tileSizes.upperBound), got \(tileSize)")
        }
        guard overlap >= 0, overlap < tileSize else {
            throw .invalidArgument("tile overlap must be 0 to tile size - 1 (\(tileSize - 1)), got \(overlap)")
        }
        self.width = width
        self.height = height
        self.tileSize = tileSize
        self.overlap = overlap
        self.maxLevel = Self.ceilLog2(max(width, height))
    }

    /// Number of levels, 1x1 and full resolution included.
    public var levelCount: Int { maxLevel + 1 }

    /// Every level, from 0 (1x1) to ``maxLevel`` (full resolution).
    public var levels: [PyramidLevel] { (0...maxLevel).map { uncheckedLevel($0) } }

    /// The level numbered `index`, or nil when the pyramid has no such level.
    public func level(_ index: Int) -> PyramidLevel? {
        (0...maxLevel).contains(index) ? uncheckedLevel(index) : nil
    }

    /// The pixels of one Deep Zoom tile in its level's coordinates, overlap
    /// included: `[col*T - (col > 0 ? overlap : 0), min(levelWidth, (col+1)*T + overlap))`
    /// across, likewise down. Nil for a level, column or row outside the pyramid.
    public func tileRect(level index: Int, column: Int, row: Int) -> TileRect? {
        guard let level = level(index), (0..<level.columns).contains(column), (0..<level.rows).contains(row) else {
            return nil
        }
        let x = column * tileSize - (column > 0 ? overlap : 0)
        let y = row * tileSize - (row > 0 ? overlap : 0)
        let maxX = min(level.width, (column + 1) * tileSize + overlap)
        let maxY = min(level.height, (row + 1) * tileSize + overlap)
        return TileRect(x: x, y: y, width: maxX - x, height: maxY - y)
    }

    /// ``tileRect(level:column:row:)`` for a coordinate.
    public func tileRect(_ tile: TileCoordinate) -> TileRect? {
        tileRect(level: tile.level, column: tile.column, row: tile.row)
    }

    /// Level `index`, which the caller has checked is in `0...maxLevel`.
    func uncheckedLevel(_ index: Int) -> PyramidLevel {
        let shift = maxLevel - index
        let levelWidth = Self.scaledSize(width, shift: shift)
        let levelHeight = Self.scaledSize(height, shift: shift)
        return PyramidLevel(
            index: index, width: levelWidth, height: levelHeight,
            columns: (levelWidth + tileSize - 1) / tileSize, rows: (levelHeight + tileSize - 1) / tileSize,
            scaleFactor: 1 << shift)
    }

    /// `ceil(size / 2^shift)` without overflow, for `size >= 1`.
    static func scaledSize(_ size: Int, shift: Int) -> Int {
        ((size - 1) >> shift) + 1
    }

    /// The smallest `n` with `2^n >= value`, for `value >= 1`.
    static func ceilLog2(_ value: Int) -> Int {
        value <= 1 ? 0 : Int.bitWidth - (value - 1).leadingZeroBitCount
    }
}

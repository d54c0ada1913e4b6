/// The IIIF Image API 3.0 view of a pyramid: the same levels as Deep Zoom,
/// named by scale factor and addressed by full-resolution regions.
///
/// A level-0 (static) service can only answer the exact URLs clients ask for,
/// so the names here follow what OpenSeadragon's IIIF tile source requests
/// for a version 3 `info.json`, which is also the canonical form of the spec:
/// - a level with several tiles: `x,y,w,h/w,h/0/default.jpg`, the region in
///   full-resolution pixels (`x = column * tileSize * scaleFactor`, cropped at
///   the image edge) and the size of the tile at that level;
/// - the largest level that fits in one tile, and every smaller level listed
///   in `sizes`: `full/w,h/0/default.jpg`;
/// - when the whole image fits in one tile: also `full/max/0/default.jpg`.
extension PyramidGeometry {
    /// The largest level that fits in one tile. IIIF tiling stops here: this
    /// level and every smaller one are served as whole images (`full/w,h`).
    public var singleTileLevel: Int {
        let tilesAcross = (max(width, height) + tileSize - 1) / tileSize
        return maxLevel - Self.ceilLog2(tilesAcross)
    }

    /// Levels that `info.json` announces through `tiles.scaleFactors`.
    public var iiifTiledLevels: ClosedRange<Int> { singleTileLevel...maxLevel }

    /// `tiles.scaleFactors`: 1, 2, 4, ... up to the single-tile level.
    public var iiifScaleFactors: [Int] {
        iiifTiledLevels.reversed().map { 1 << (maxLevel - $0) }
    }

    /// Levels announced in `sizes` (whole-image renditions), smallest first:
    /// the single-tile level and everything below it, down to 1x1.
    public var iiifSizeLevels: [PyramidLevel] {
        (0...singleTileLevel).map { uncheckedLevel($0) }
    }

    /// The part of the full-resolution image a tile shows (IIIF tiles never
    /// overlap): `tileSize * scaleFactor` square, cropped at the image edge.
    public func iiifRegion(level index: Int, column: Int, row: Int) -> TileRect? {
        guard let level = level(index), (0..<level.columns).contains(column), (0..<level.rows).contains(row) else {
            return nil
        }
        let span = tileSize * level.scaleFactor
        let x = column * span
        let y = row * span
        return TileRect(x: x, y: y, width: min(span, width - x), height: min(span, height - y))
    }

    /// The tile's pixels at its level, without overlap (what a IIIF tile holds).
    public func iiifTileRect(level index: Int, column: Int, row: Int) -> TileRect? {
        guard let level = level(index), (0..<level.columns).contains(column), (0..<level.rows).contains(row) else {
            return nil
        }
        let x = column * tileSize
        let y = row * tileSize
        return TileRect(x: x, y: y, width: min(tileSize, level.width - x), height: min(tileSize, level.height - y))
    }

    /// The files of a static level-0 tree that hold this tile, relative to
    /// the image's base URI. The first is the URL OpenSeadragon requests.
    /// Empty for levels below ``singleTileLevel`` except tile 0,0 (a `sizes`
    /// entry) and for tiles outside the pyramid.
    public func iiifPaths(level index: Int, column: Int, row: Int, format: String = "jpg") -> [String] {
        guard let level = level(index), let rect = iiifTileRect(level: index, column: column, row: row) else {
            return []
        }
        if index > singleTileLevel, let region = iiifRegion(level: index, column: column, row: row) {
            return ["\(region)/\(rect.width),\(rect.height)/0/default.\(format)"]
        }
        let sized = "full/\(level.width),\(level.height)/0/default.\(format)"
        return index == maxLevel ? ["full/max/0/default.\(format)", sized] : [sized]
    }

    /// The tile a request for `region/size` (two path segments of an image
    /// request, e.g. `"512,0,88,256"` and `"88,256"`) names, when it is one
    /// of the pyramid's static files; nil for any other region or size,
    /// which a level-0 service cannot answer. Lets a server make missing
    /// tiles lazily with ``TilePyramidBuilder/tile(of:level:column:row:options:)``.
    public func iiifTile(region: String, size: String) -> TileCoordinate? {
        if region == "full" {
            if size == "max" {
                return singleTileLevel == maxLevel ? TileCoordinate(level: maxLevel, column: 0, row: 0) : nil
            }
            for level in iiifSizeLevels where size == "\(level.width),\(level.height)" {
                return TileCoordinate(level: level.index, column: 0, row: 0)
            }
            return nil
        }
        let parts = region.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 4, let x = Int(parts[0]), let y = Int(parts[1]), x >= 0, y >= 0,
              singleTileLevel < maxLevel else { return nil }
        for index in (singleTileLevel + 1)...maxLevel {
            let span = tileSize << (maxLevel - index)
            guard x % span == 0, y % span == 0 else { continue }
            let column = x / span
            let row = y / span
            guard let expected = iiifRegion(level: index, column: column, row: row),
                  let rect = iiifTileRect(level: index, column: column, row: row),
                  region == expected.description, size == "\(rect.width),\(rect.height)" else { continue }
            return TileCoordinate(level: index, column: column, row: row)
        }
        return nil
    }
}

import Foundation
import Testing
@testable import Imaging

/// Pyramid geometry against the Deep Zoom rules, restated here independently
/// in floating point: `maxLevel = ceil(log2(max(w, h)))`, level `L` is
/// `ceil(w / 2^(maxLevel - L)) x ceil(h / 2^(maxLevel - L))`, tile `(c, r)`
/// covers `[c*T - (c > 0 ? overlap : 0), min(levelWidth, (c+1)*T + overlap))`
/// across and likewise down.
@Suite struct PyramidGeometryTests {
    static let sizes = [(1, 1), (2, 1), (1, 2), (257, 1), (1, 257), (256, 256), (257, 257), (600, 300),
                        (4097, 3001), (3, 5000)]
    static let grids = [(254, 0), (254, 1), (256, 0), (256, 1), (256, 2)]

    /// The rules, written the way the format describes them.
    struct Reference {
        let width: Int, height: Int, tileSize: Int, overlap: Int
        var maxLevel: Int { Int(ceil(log2(Double(max(width, height))))) }
        func size(_ level: Int) -> (Int, Int) {
            let scale = pow(2, Double(maxLevel - level))
            return (Int(ceil(Double(width) / scale)), Int(ceil(Double(height) / scale)))
        }
        func tiles(_ level: Int) -> (Int, Int) {
            let (w, h) = size(level)
            return (Int(ceil(Double(w) / Double(tileSize))), Int(ceil(Double(h) / Double(tileSize))))
        }
        func span(_ index: Int, extent: Int) -> (start: Int, length: Int) {
            let start = index * tileSize - (index > 0 ? overlap : 0)
            return (start, min(extent, (index + 1) * tileSize + overlap) - start)
        }
    }

    @Test(arguments: sizes)
    func levelsAndTilesFollowTheDeepZoomRules(width: Int, height: Int) throws {
        for (tileSize, overlap) in Self.grids {
            let geometry = try PyramidGeometry(width: width, height: height, tileSize: tileSize, overlap: overlap)
            let reference = Reference(width: width, height: height, tileSize: tileSize, overlap: overlap)
            #expect(geometry.maxLevel == reference.maxLevel)
            #expect(geometry.levels.count == reference.maxLevel + 1)
            #expect(geometry.level(0)?.width == 1 && geometry.level(0)?.height == 1)
            #expect(geometry.level(geometry.maxLevel)?.width == width)
            #expect(geometry.level(geometry.maxLevel + 1) == nil && geometry.level(-1) == nil)
            for level in geometry.levels {
                let (w, h) = reference.size(level.index)
                let (columns, rows) = reference.tiles(level.index)
                #expect(level.width == w && level.height == h, "level \(level.index) of \(width)x\(height)")
                #expect(level.columns == columns && level.rows == rows)
                #expect(level.scaleFactor == 1 << (geometry.maxLevel - level.index))
                for column in [0, 1, columns / 2, columns - 2, columns - 1] where (0..<columns).contains(column) {
                    for row in [0, 1, rows / 2, rows - 1] where (0..<rows).contains(row) {
                        let rect = try #require(geometry.tileRect(level: level.index, column: column, row: row))
                        let across = reference.span(column, extent: w)
                        let down = reference.span(row, extent: h)
                        #expect(rect == TileRect(x: across.start, y: down.start, width: across.length, height: down.length),
                                "\(width)x\(height) T\(tileSize) O\(overlap) level \(level.index) tile \(column)_\(row)")
                    }
                }
                #expect(geometry.tileRect(level: level.index, column: columns, row: 0) == nil)
                #expect(geometry.tileRect(level: level.index, column: 0, row: rows) == nil)
                #expect(geometry.tileRect(level: level.index, column: -1, row: 0) == nil)
            }
        }
    }

    @Test func oneByOneHasASingleLevel() throws {
        let geometry = try PyramidGeometry(width: 1, height: 1, tileSize: 254, overlap: 1)
        #expect(geometry.maxLevel == 0 && geometry.levelCount == 1)
        #expect(geometry.tileRect(level: 0, column: 0, row: 0) == TileRect(x: 0, y: 0, width: 1, height: 1))
    }

    @Test func thinImageEdgeTilesAreCropped() throws {
        let plain = try PyramidGeometry(width: 257, height: 1, tileSize: 256, overlap: 0)
        #expect(plain.maxLevel == 9)
        #expect(plain.level(9) == PyramidLevel(index: 9, width: 257, height: 1, columns: 2, rows: 1, scaleFactor: 1))
        #expect(plain.level(8) == PyramidLevel(index: 8, width: 129, height: 1, columns: 1, rows: 1, scaleFactor: 2))
        #expect(plain.tileRect(level: 9, column: 1, row: 0) == TileRect(x: 256, y: 0, width: 1, height: 1))
        let overlapped = try PyramidGeometry(width: 257, height: 1, tileSize: 254, overlap: 1)
        #expect(overlapped.tileRect(level: 9, column: 0, row: 0) == TileRect(x: 0, y: 0, width: 255, height: 1))
        #expect(overlapped.tileRect(level: 9, column: 1, row: 0) == TileRect(x: 253, y: 0, width: 4, height: 1))
    }

    @Test func largeOddImage() throws {
        let geometry = try PyramidGeometry(width: 4097, height: 3001, tileSize: 256, overlap: 1)
        #expect(geometry.maxLevel == 13)
        let top = try #require(geometry.level(13))
        #expect((top.columns, top.rows) == (17, 12))
        #expect(geometry.tileRect(level: 13, column: 16, row: 11) == TileRect(x: 4095, y: 2815, width: 2, height: 186))
        #expect(geometry.tileRect(level: 13, column: 5, row: 5) == TileRect(x: 1279, y: 1279, width: 258, height: 258))
        #expect(geometry.level(12).map { ($0.width, $0.height, $0.columns, $0.rows) }! == (2049, 1501, 9, 6))
        #expect(geometry.level(1).map { ($0.width, $0.height) }! == (2, 1))
    }

    /// Overlap appears on interior edges only and neighbours share exactly
    /// `2 * overlap` pixels, so the tiles of every level cover it exactly.
    @Test(arguments: [(257, 257), (600, 300), (4097, 3001)])
    func tilesCoverEachLevelWithOverlapOnInteriorEdgesOnly(width: Int, height: Int) throws {
        for (tileSize, overlap) in Self.grids {
            let geometry = try PyramidGeometry(width: width, height: height, tileSize: tileSize, overlap: overlap)
            for level in geometry.levels {
                var covered = 0
                for column in 0..<level.columns {
                    let rect = try #require(geometry.tileRect(level: level.index, column: column, row: 0))
                    #expect(rect.width <= tileSize + 2 * overlap && rect.width >= 1)
                    if column == 0 { #expect(rect.x == 0) }
                    if column == level.columns - 1 { #expect(rect.maxX == level.width) }
                    if column > 0 {
                        let previous = try #require(geometry.tileRect(level: level.index, column: column - 1, row: 0))
                        #expect(previous.maxX - rect.x == min(2 * overlap, level.width - rect.x))
                        #expect(rect.x == column * tileSize - overlap)
                    }
                    covered = rect.maxX
                }
                #expect(covered == level.width)
            }
        }
    }

    @Test func refusesImpossibleGrids() {
        #expect(throws: ImagingError.self) { try PyramidGeometry(width: 0, height: 10) }
        #expect(throws: ImagingError.self) { try PyramidGeometry(width: 10, height: -1) }
        #expect(throws: ImagingError.self) { try PyramidGeometry(width: 10, height: 10, tileSize: 0) }
        #expect(throws: ImagingError.self) { try PyramidGeometry(width: 10, height: 10, tileSize: 9000) }
        #expect(throws: ImagingError.self) { try PyramidGeometry(width: 10, height: 10, tileSize: 4, overlap: 4) }
        #expect(throws: ImagingError.self) { try PyramidGeometry(width: 10, height: 10, tileSize: 4, overlap: -1) }
        #expect(throws: ImagingError.self) { try PyramidGeometry(width: Int.max, height: 1) }
    }

    // MARK: IIIF

    /// The names `vips dzsave --layout iiif3` and OpenSeadragon use for a 600x300 image.
    @Test func iiifNamesForASmallImage() throws {
        let geometry = try PyramidGeometry(width: 600, height: 300, tileSize: 256)
        #expect(geometry.iiifScaleFactors == [1, 2, 4])
        #expect(geometry.singleTileLevel == geometry.maxLevel - 2)
        let top = geometry.maxLevel
        #expect(geometry.iiifPaths(level: top, column: 0, row: 0) == ["0,0,256,256/256,256/0/default.jpg"])
        #expect(geometry.iiifPaths(level: top, column: 2, row: 1) == ["512,256,88,44/88,44/0/default.jpg"])
        #expect(geometry.iiifPaths(level: top - 1, column: 0, row: 0) == ["0,0,512,300/256,150/0/default.jpg"])
        #expect(geometry.iiifPaths(level: top - 1, column: 1, row: 0) == ["512,0,88,300/44,150/0/default.jpg"])
        #expect(geometry.iiifPaths(level: top - 2, column: 0, row: 0) == ["full/150,75/0/default.jpg"])
        #expect(geometry.iiifPaths(level: 0, column: 0, row: 0) == ["full/1,1/0/default.jpg"])
        #expect(geometry.iiifPaths(level: top, column: 3, row: 0).isEmpty)
        #expect(geometry.iiifSizeLevels.map(\.width) == [1, 2, 3, 5, 10, 19, 38, 75, 150])
    }

    @Test func iiifImageThatFitsOneTileIsAlsoFullMax() throws {
        let geometry = try PyramidGeometry(width: 200, height: 256, tileSize: 256)
        #expect(geometry.iiifScaleFactors == [1])
        #expect(geometry.iiifPaths(level: geometry.maxLevel, column: 0, row: 0)
                == ["full/max/0/default.jpg", "full/200,256/0/default.jpg"])
        #expect(geometry.iiifTile(region: "full", size: "max") == TileCoordinate(level: geometry.maxLevel, column: 0, row: 0))
    }

    /// What OpenSeadragon's IIIFTileSource (Image API 3) computes for each tile:
    /// every URL it can ask for must be a file the pyramid has.
    @Test(arguments: [(600, 300), (4097, 3001), (257, 1), (1, 300), (512, 512), (513, 200)])
    func iiifPathsAreWhatOpenSeadragonRequests(width: Int, height: Int) throws {
        for tileSize in [254, 256] {
            let geometry = try PyramidGeometry(width: width, height: height, tileSize: tileSize)
            let maxScale = try #require(geometry.iiifScaleFactors.max())
            let clientMaxLevel = Int(log2(Double(maxScale)).rounded())
            for clientLevel in 0...clientMaxLevel {
                let scale = pow(0.5, Double(clientMaxLevel - clientLevel))
                let levelWidth = Int(ceil(Double(width) * scale))
                let levelHeight = Int(ceil(Double(height) * scale))
                let columns = Int(ceil(Double(levelWidth) / Double(tileSize)))
                let rows = Int(ceil(Double(levelHeight) / Double(tileSize)))
                let level = geometry.maxLevel - (clientMaxLevel - clientLevel)
                for column in 0..<columns {
                    for row in 0..<rows {
                        let url = Self.openSeadragonPath(width: width, height: height, tileSize: tileSize, scale: scale,
                                                         levelWidth: levelWidth, levelHeight: levelHeight, x: column, y: row)
                        let paths = geometry.iiifPaths(level: level, column: column, row: row)
                        #expect(paths.first == url, "\(width)x\(height) T\(tileSize) level \(level) tile \(column)_\(row)")
                        let parts = url.split(separator: "/").map(String.init)
                        #expect(geometry.iiifTile(region: parts[0], size: parts[1])
                                == TileCoordinate(level: level, column: column, row: row))
                    }
                }
            }
        }
    }

    /// OpenSeadragon's `getTileUrl` for a version 3, level 0 service (restated, not copied).
    static func openSeadragonPath(width: Int, height: Int, tileSize: Int, scale: Double,
                                  levelWidth: Int, levelHeight: Int, x: Int, y: Int) -> String {
        let region: String
        let size: String
        if levelWidth < tileSize && levelHeight < tileSize {
            size = levelWidth == width && levelHeight == height ? "max" : "\(levelWidth),\(levelHeight)"
            region = "full"
        } else {
            let span = Int((Double(tileSize) / scale).rounded())
            let regionX = x * span, regionY = y * span
            let regionW = min(span, width - regionX), regionH = min(span, height - regionY)
            region = regionX == 0 && regionY == 0 && regionW == width && regionH == height
                ? "full" : "\(regionX),\(regionY),\(regionW),\(regionH)"
            let sizeW = min(tileSize, levelWidth - x * tileSize), sizeH = min(tileSize, levelHeight - y * tileSize)
            size = sizeW == width && sizeH == height ? "max" : "\(sizeW),\(sizeH)"
        }
        return "\(region)/\(size)/0/default.jpg"
    }

    @Test func iiifLookupRefusesWhatALevel0ServiceCannotServe() throws {
        let geometry = try PyramidGeometry(width: 600, height: 300, tileSize: 256)
        #expect(geometry.iiifTile(region: "512,256,88,44", size: "88,44") != nil)
        #expect(geometry.iiifTile(region: "512,256,88,44", size: "max") == nil)
        #expect(geometry.iiifTile(region: "512,256,100,44", size: "88,44") == nil)
        #expect(geometry.iiifTile(region: "100,0,256,256", size: "256,256") == nil)
        #expect(geometry.iiifTile(region: "0,0,256,256", size: "128,128") == nil)
        #expect(geometry.iiifTile(region: "-256,0,256,256", size: "256,256") == nil)
        #expect(geometry.iiifTile(region: "full", size: "max") == nil)
        #expect(geometry.iiifTile(region: "full", size: "150,75") == TileCoordinate(level: geometry.maxLevel - 2, column: 0, row: 0))
        #expect(geometry.iiifTile(region: "full", size: "151,75") == nil)
        #expect(geometry.iiifTile(region: "pct:0,0,50,50", size: "max") == nil)
    }

    @Test func iiifRegionsAreInFullResolutionPixels() throws {
        let geometry = try PyramidGeometry(width: 4097, height: 3001, tileSize: 256, overlap: 1)
        let level = geometry.maxLevel - 2
        #expect(geometry.iiifRegion(level: level, column: 4, row: 2) == TileRect(x: 4096, y: 2048, width: 1, height: 953))
        #expect(geometry.iiifTileRect(level: level, column: 4, row: 2) == TileRect(x: 1024, y: 512, width: 1, height: 239))
        #expect(geometry.iiifRegion(level: level, column: 5, row: 0) == nil)
    }
}

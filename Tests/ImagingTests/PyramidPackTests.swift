import Foundation
import Testing
@testable import Imaging

@Suite struct PyramidPackTests {
    static let image = TestImages.textured(width: 700, height: 500)

    static func pack(overlap: Int = 0) throws -> [UInt8] {
        try TilePyramidBuilder.pack(image: image, options: TilePyramidOptions(overlap: overlap, threads: 2),
                                    source: Array(repeating: 7, count: 32)).bytes
    }

    @Test func holdsEveryDeepZoomTileOfTheTreeBuild() throws {
        let bytes = try Self.pack()
        let pack = try PyramidPack(bytes)
        #expect(pack.geometry.width == 700 && pack.geometry.height == 500 && pack.geometry.maxLevel == 10)
        #expect(pack.source == Array(repeating: 7, count: 32))
        #expect(pack.quality == 85, "kept so a rebuild makes the same bytes")
        #expect(pack.entries.count == pack.geometry.levels.reduce(0) { $0 + $1.tileCount })
        // Smallest levels first, then row-major, contiguous after the index.
        #expect(pack.entries.first?.offset == pack.dataOffset)
        for (a, b) in zip(pack.entries, pack.entries.dropFirst()) { #expect(a.offset + a.length == b.offset) }
        let tree = try PyramidFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: tree) }
        _ = try TilePyramidBuilder.build(image: Self.image, layout: .deepZoom, into: tree)
        for level in pack.geometry.levels {
            for row in 0..<level.rows {
                for column in 0..<level.columns {
                    let file = tree.appendingPathComponent("image_files/\(level.index)/\(column)_\(row).jpg")
                    #expect(try pack.tile(bytes, level: level.index, column: column, row: row) == PyramidFixtures.bytes(file))
                }
            }
        }
        #expect(pack.entry(level: 10, column: 3, row: 0) == nil)
        #expect(pack.entry(level: 11, column: 0, row: 0) == nil)
        #expect(try Self.pack() == bytes, "deterministic: the same image gives the same file")
    }

    @Test func iiifRequestsMapToTheSameTiles() throws {
        let pack = try PyramidPack(try Self.pack())
        // Scale factor 2 (level 9, 350x250): tile 1,0 covers 512,0 to 700,500 of the full image.
        #expect(pack.tileForIIIF(region: "512,0,188,500", size: "94,250") == TileCoordinate(level: 9, column: 1, row: 0))
        #expect(pack.tileForIIIF(region: "full", size: "175,125") == TileCoordinate(level: 8, column: 0, row: 0))
        #expect(pack.tileForIIIF(region: "0,0,100,100", size: "100,100") == nil)
        // With overlap, only the single-tile levels are shared.
        let overlapped = try PyramidPack(try Self.pack(overlap: 1))
        #expect(overlapped.tileForIIIF(region: "512,0,188,500", size: "94,250") == nil)
        #expect(overlapped.tileForIIIF(region: "full", size: "175,125") == TileCoordinate(level: 8, column: 0, row: 0))
    }

    @Test func refusesTruncatedAndDamagedPacks() throws {
        let bytes = try Self.pack()
        #expect(throws: PackError.self) { try PyramidPack(Array(bytes.prefix(50))) }
        #expect(throws: PackError.self) { try PyramidPack(Array(bytes.dropLast(1))) }
        #expect(throws: PackError.self) { try PyramidPack(bytes + [0]) }
        var magic = bytes
        magic[0] = UInt8(ascii: "X")
        #expect(throws: PackError.notAPack) { try PyramidPack(magic) }
        var header = bytes
        header[9] ^= 0x40  // the width
        #expect(throws: PackError.self) { try PyramidPack(header) }
        var quality = bytes
        quality[22] = 0
        #expect(throws: PackError.self) { try PyramidPack(quality) }
        var index = bytes
        index[PyramidPack.headerLength + 3] ^= 0x01  // an offset
        #expect(throws: PackError.self) { try PyramidPack(index) }

        // A flipped bit inside a tile passes the header and index, and fails that tile only.
        var tile = bytes
        let pack = try PyramidPack(bytes)
        let last = try #require(pack.entries.last)
        tile[last.offset + last.length / 2] ^= 0x10
        let parsed = try PyramidPack(tile)
        #expect(throws: PackError.self) { try parsed.checkAll(tile) }
        #expect(throws: PackError.self) { try parsed.tile(tile, level: 10, column: 2, row: 1) }
        #expect(try parsed.tile(tile, level: 10, column: 0, row: 0) != nil)
    }

    @Test func headersClaimingHugeCountsAreRefusedBeforeAllocating() throws {
        var bytes = try Self.pack()
        bytes.replaceSubrange(24..<28, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(PyramidPack.indexEnd(header: bytes) == nil)
        #expect(throws: PackError.self) { try PyramidPack(bytes) }
    }
}

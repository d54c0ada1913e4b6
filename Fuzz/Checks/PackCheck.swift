import Imaging

/// Pyramid packs as found on disk or in a bucket, damaged or hostile: the reader must
/// refuse what does not add up (lengths, counts, offsets, checksums) without trapping
/// or allocating what a header merely claims, read the same pack from its header and
/// index alone as from the whole file, and hand out only tiles that pass their checks.
public enum PackCheck: FuzzCheck {
    public static let name = "fuzz-pack"

    public static func run(_ bytes: [UInt8]) -> String? {
        let end = PyramidPack.indexEnd(header: bytes)
        guard let pack = try? PyramidPack(bytes) else { return nil }
        guard let end, end == pack.dataOffset, end <= bytes.count else {
            return "indexEnd \(String(describing: end)) disagrees with dataOffset \(pack.dataOffset)"
        }
        guard let head = try? PyramidPack(headerAndIndex: Array(bytes[..<end]), fileLength: bytes.count), head == pack else {
            return "the header and index alone read differently from the whole pack"
        }
        let allGood = (try? pack.checkAll(bytes)) != nil
        for info in pack.geometry.levels {
            for (column, row) in [(0, 0), (info.columns - 1, info.rows - 1), (info.columns, 0)] {
                let tile = try? pack.tile(bytes, level: info.index, column: column, row: row)
                if let tile, let entry = pack.entry(level: info.index, column: column, row: row), tile.count != entry.length {
                    return "tile of \(tile.count) bytes for an entry of \(entry.length)"
                }
                if allGood, column < info.columns, tile == nil { return "a checked pack lost a tile" }
                for path in pack.geometry.iiifPaths(level: info.index, column: column, row: row) {
                    let parts = path.split(separator: "/")
                    if parts.count >= 2 { _ = pack.tileForIIIF(region: String(parts[0]), size: String(parts[1])) }
                }
            }
        }
        return nil
    }

    public static func seeds() throws -> [String: [UInt8]] { try PackSeeds.make() }
}

/// Packs written by the project's own pack writer, with and without overlap, JPEG
/// and PNG tiles, one level and many.
enum PackSeeds {
    static func make() throws -> [String: [UInt8]] {
        let tileImage = try PixelBuffer(width: 2, height: 2, channels: 3, bytes: [200, 10, 10, 10, 200, 10, 10, 10, 200, 90, 90, 90])
        let jpeg = try JPEGEncoder.encode(tileImage, quality: 50)
        let png = try PNGEncoder.encode(tileImage)
        var seeds: [String: [UInt8]] = [:]
        let shapes: [(String, Int, Int, Int, Int, PyramidPack.TileFormat)] = [
            ("wide-jpeg", 300, 90, 128, 0, .jpeg), ("tall-overlap", 70, 260, 64, 1, .jpeg),
            ("tiny-png", 3, 2, 256, 0, .png), ("square-png-overlap", 129, 129, 32, 2, .png),
        ]
        for (name, width, height, tileSize, overlap, format) in shapes {
            let geometry = try PyramidGeometry(width: width, height: height, tileSize: tileSize, overlap: overlap)
            let count = geometry.levels.reduce(0) { $0 + $1.tileCount }
            let tile = format == .jpeg ? jpeg : png
            seeds[name] = try PyramidPack.assemble(
                geometry: geometry, format: format, quality: 50, source: [UInt8](repeating: 7, count: 32),
                tiles: Array(repeating: tile, count: count))
        }
        return seeds
    }
}

internal import CTweetCache

/// A whole Deep Zoom pyramid in one file: a fixed header, an index of every
/// tile (offset, length, CRC-32), then the tiles themselves, concatenated.
///
/// One file per image instead of one per tile: a million images cost a few
/// million inodes rather than tens of millions, a pyramid is published with one
/// rename, and an object store (where every file is a billed request) can hold
/// it as one object read by byte ranges. The header and index are read once
/// and kept; a tile is then one `pread` at a known offset, written to the
/// socket as stored (no decode, no re-encode). The format is specified in
/// `docs/pack-format.md`; all integers are little-endian.
///
/// Tiles are ordered by level, smallest first, then row-major, so the header,
/// the index and every level a viewer opens with are in the file's first pages.
public struct PyramidPack: Sendable, Hashable {
    /// `TCPK`.
    public static let magic: [UInt8] = Array("TCPK".utf8)
    public static let version = 1
    public static let headerLength = 96
    public static let indexEntryLength = 16
    /// Bounds on what a header may claim before anything is allocated.
    public static let maxTiles = 1 << 22

    /// JPEG quality the tiles were encoded at (1-100), so a rebuild or an
    /// export makes the same bytes.
    public let quality: Int

    /// How a tile's bytes are encoded.
    public enum TileFormat: UInt8, Sendable, Hashable {
        case jpeg = 1
        /// Lossless tiles with alpha: what packs of transparent images held before WebP.
        case png = 2
        /// Lossy tiles with lossless alpha: transparent images' pyramids at about a tenth
        /// of PNG's bytes (docs/benchmarks.md, issue 28).
        case webp = 3

        public var fileExtension: String {
            switch self {
            case .jpeg: "jpg"
            case .png: "png"
            case .webp: "webp"
            }
        }

        public var mediaType: String {
            switch self {
            case .jpeg: "image/jpeg"
            case .png: "image/png"
            case .webp: "image/webp"
            }
        }

        /// Whether tiles keep the image's alpha (every format but JPEG).
        public var keepsAlpha: Bool { self != .jpeg }
    }

    /// Where one tile's bytes are, and their checksum.
    public struct Entry: Sendable, Hashable {
        public var offset: Int
        public var length: Int
        public var crc32: UInt32
    }

    /// The Deep Zoom geometry of the pyramid (tile size and overlap as built).
    public let geometry: PyramidGeometry
    public let format: TileFormat
    /// SHA-256 of the original the pyramid was cut from (32 bytes; zeros when not given).
    public let source: [UInt8]
    /// Where the tiles start: the header and index together.
    public let dataOffset: Int
    /// The length the file must have.
    public let fileLength: Int
    /// One entry per tile, in pack order (see ``tileNumber(level:column:row:)``).
    public let entries: [Entry]
    /// First tile number of each level.
    private let levelStarts: [Int]

    /// The number of a tile in pack order, or nil outside the pyramid.
    public func tileNumber(level: Int, column: Int, row: Int) -> Int? {
        guard let info = geometry.level(level), (0..<info.columns).contains(column), (0..<info.rows).contains(row) else {
            return nil
        }
        return levelStarts[level] + row * info.columns + column
    }

    /// The entry of a Deep Zoom tile, or nil outside the pyramid.
    public func entry(level: Int, column: Int, row: Int) -> Entry? {
        tileNumber(level: level, column: column, row: row).map { entries[$0] }
    }

    /// The Deep Zoom tile that holds exactly the pixels of a IIIF request for
    /// `region`/`size` (as canonical strings): with no overlap, IIIF tiles
    /// and `sizes` entries are the Deep Zoom tiles under other names. Nil for
    /// any other request, and for every tiled level when the pack has overlap.
    public func tileForIIIF(region: String, size: String) -> TileCoordinate? {
        guard let tile = geometry.iiifTile(region: region, size: size) else { return nil }
        if geometry.overlap == 0 || geometry.level(tile.level).map({ $0.tileCount == 1 }) == true { return tile }
        return nil
    }

    // MARK: - Reading

    /// Parses and checks the header and index (`bytes` holds at least
    /// ``dataOffset`` bytes from the start of the file; ``headerLength`` is
    /// enough to learn how many). `fileLength` is the size of the file as
    /// found, so a truncated pack is refused here, before any tile is read.
    public init(headerAndIndex bytes: [UInt8], fileLength: Int) throws(PackError) {
        guard bytes.count >= Self.headerLength else { throw .truncated("\(bytes.count)-byte file is shorter than the header") }
        let reader = LittleEndian(bytes)
        guard Array(bytes[0..<4]) == Self.magic else { throw .notAPack }
        let version = reader.u16(4)
        guard version == Self.version else { throw .unsupportedVersion(version) }
        guard reader.u16(6) == Self.headerLength else { throw .corrupt("header length \(reader.u16(6))") }
        guard reader.u32(92) == Self.crc(bytes[0..<92]) else { throw .corrupt("header checksum does not match") }
        guard let format = TileFormat(rawValue: bytes[20]) else { throw .corrupt("tile format \(bytes[20])") }
        let geometry: PyramidGeometry
        do {
            geometry = try PyramidGeometry(width: reader.u32(8), height: reader.u32(12), tileSize: reader.u16(16),
                                           overlap: reader.u16(18))
        } catch {
            throw .corrupt("geometry: \(error)")
        }
        guard Int(bytes[21]) == geometry.levelCount else { throw .corrupt("\(bytes[21]) levels, geometry has \(geometry.levelCount)") }
        guard (1...100).contains(Int(bytes[22])) else { throw .corrupt("quality \(bytes[22])") }
        let tileCount = reader.u32(24)
        let starts = Self.levelStarts(geometry)
        guard tileCount == starts.last, tileCount <= Self.maxTiles else {
            throw .corrupt("\(tileCount) tiles, geometry has \(starts.last ?? 0)")
        }
        let dataOffset = Self.headerLength + tileCount * Self.indexEntryLength
        guard reader.u64(32) == dataOffset else { throw .corrupt("data offset \(reader.u64(32)), expected \(dataOffset)") }
        let declaredLength = reader.u64(40)
        guard declaredLength == fileLength else {
            throw fileLength < declaredLength
                ? .truncated("file is \(fileLength) bytes, the header says \(declaredLength)")
                : .corrupt("file is \(fileLength) bytes, the header says \(declaredLength)")
        }
        guard bytes.count >= dataOffset else { throw .truncated("the index ends past the data read") }
        guard reader.u32(28) == Self.crc(bytes[Self.headerLength..<dataOffset]) else {
            throw .corrupt("index checksum does not match")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(tileCount)
        for tile in 0..<tileCount {
            let at = Self.headerLength + tile * Self.indexEntryLength
            let entry = Entry(offset: reader.u64(at), length: reader.u32(at + 8), crc32: UInt32(reader.u32(at + 12)))
            guard entry.length > 0, entry.offset >= dataOffset, entry.offset <= declaredLength - entry.length else {
                throw .corrupt("tile \(tile) at \(entry.offset)+\(entry.length) lies outside the data")
            }
            entries.append(entry)
        }
        self.geometry = geometry
        self.format = format
        quality = Int(bytes[22])
        source = Array(bytes[48..<80])
        self.dataOffset = dataOffset
        self.fileLength = declaredLength
        self.entries = entries
        levelStarts = starts
    }

    /// ``init(headerAndIndex:fileLength:)`` for a whole pack in memory.
    public init(_ bytes: [UInt8]) throws(PackError) {
        try self.init(headerAndIndex: bytes, fileLength: bytes.count)
    }

    /// How many bytes from the start hold the header and index, from the
    /// header alone (nil when `header` is not a plausible pack header).
    public static func indexEnd(header: [UInt8]) -> Int? {
        guard header.count >= headerLength, Array(header[0..<4]) == magic else { return nil }
        let tiles = LittleEndian(header).u32(24)
        guard tiles <= maxTiles else { return nil }
        return headerLength + tiles * indexEntryLength
    }

    /// Checks one tile's bytes against its entry: the CRC-32 and, for JPEG,
    /// the start and end markers. A pack damaged after it was written is never
    /// served as garbage.
    public func check(_ tile: [UInt8], _ entry: Entry) throws(PackError) {
        guard tile.count == entry.length else { throw .truncated("tile has \(tile.count) of \(entry.length) bytes") }
        guard Self.crc(tile[...]) == entry.crc32 else { throw .corrupt("tile at \(entry.offset) fails its checksum") }
        if format == .jpeg {
            guard tile.count >= 4, tile[0] == 0xFF, tile[1] == 0xD8, tile[tile.count - 2] == 0xFF, tile[tile.count - 1] == 0xD9 else {
                throw .corrupt("tile at \(entry.offset) is not a whole JPEG")
            }
        }
    }

    /// Checks every tile of a whole pack in memory (what `verify` does).
    public func checkAll(_ bytes: [UInt8]) throws(PackError) {
        guard bytes.count == fileLength else { throw .truncated("pack has \(bytes.count) of \(fileLength) bytes") }
        for entry in entries {
            try check(Array(bytes[entry.offset..<(entry.offset + entry.length)]), entry)
        }
    }

    /// The bytes of one tile of a whole pack in memory, checked.
    public func tile(_ bytes: [UInt8], level: Int, column: Int, row: Int) throws(PackError) -> [UInt8]? {
        guard let entry = entry(level: level, column: column, row: row) else { return nil }
        guard entry.offset + entry.length <= bytes.count else { throw .truncated("tile past the end") }
        let tile = Array(bytes[entry.offset..<(entry.offset + entry.length)])
        try check(tile, entry)
        return tile
    }

    // MARK: - Writing

    /// Serialises a pack from its tiles, in pack order. Deterministic: the
    /// same tiles give the same bytes, so a re-run writes an identical file.
    public static func assemble(
        geometry: PyramidGeometry, format: TileFormat, quality: Int, source: [UInt8]?, tiles: [[UInt8]]
    ) throws(PackError) -> [UInt8] {
        guard (1...100).contains(quality) else { throw .corrupt("quality \(quality)") }
        let starts = levelStarts(geometry)
        guard tiles.count == starts.last, tiles.count <= maxTiles else {
            throw .corrupt("\(tiles.count) tiles given for a pyramid of \(starts.last ?? 0)")
        }
        guard geometry.tileSize <= 0xFFFF, geometry.overlap <= 0xFFFF, geometry.width <= 0xFFFF_FFFF,
              geometry.height <= 0xFFFF_FFFF else { throw .corrupt("geometry does not fit the header") }
        let dataOffset = headerLength + tiles.count * indexEntryLength
        let total = tiles.reduce(dataOffset) { $0 + $1.count }
        var out = [UInt8](repeating: 0, count: dataOffset)
        out.reserveCapacity(total)
        var offset = dataOffset
        for (number, tile) in tiles.enumerated() {
            guard !tile.isEmpty else { throw .corrupt("tile \(number) is empty") }
            let at = headerLength + number * indexEntryLength
            put64(&out, at, offset)
            put32(&out, at + 8, tile.count)
            put32(&out, at + 12, Int(crc(tile[...])))
            offset += tile.count
        }
        out.replaceSubrange(0..<4, with: magic)
        put16(&out, 4, version)
        put16(&out, 6, headerLength)
        put32(&out, 8, geometry.width)
        put32(&out, 12, geometry.height)
        put16(&out, 16, geometry.tileSize)
        put16(&out, 18, geometry.overlap)
        out[20] = format.rawValue
        out[21] = UInt8(geometry.levelCount)
        out[22] = UInt8(quality)
        put32(&out, 24, tiles.count)
        put32(&out, 28, Int(crc(out[headerLength..<dataOffset])))
        put64(&out, 32, dataOffset)
        put64(&out, 40, total)
        if let source, source.count == 32 { out.replaceSubrange(48..<80, with: source) }
        put32(&out, 92, Int(crc(out[0..<92])))
        for tile in tiles { out.append(contentsOf: tile) }
        return out
    }

    /// First tile number of each level, plus the total at the end.
    static func levelStarts(_ geometry: PyramidGeometry) -> [Int] {
        var starts = [0]
        for level in geometry.levels { starts.append(starts[starts.count - 1] + level.tileCount) }
        return starts
    }

    static func crc(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBytes { tc_crc32(0, $0.baseAddress, $0.count) }
    }

    private static func put16(_ out: inout [UInt8], _ at: Int, _ value: Int) {
        for i in 0..<2 { out[at + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
    }

    private static func put32(_ out: inout [UInt8], _ at: Int, _ value: Int) {
        for i in 0..<4 { out[at + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
    }

    private static func put64(_ out: inout [UInt8], _ at: Int, _ value: Int) {
        for i in 0..<8 { out[at + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
    }
}

/// Why a pack cannot be used; a server answers 500 for it and `verify --repair`
/// rebuilds it from the original.
public enum PackError: Error, Sendable, Hashable, CustomStringConvertible {
    case notAPack
    case unsupportedVersion(Int)
    case truncated(String)
    case corrupt(String)

    public var description: String {
        switch self {
        case .notAPack: "not a pyramid pack (no TCPK signature)"
        case let .unsupportedVersion(version): "pyramid pack version \(version) is not supported (this build reads 1)"
        case let .truncated(detail): "truncated pyramid pack: \(detail)"
        case let .corrupt(detail): "corrupt pyramid pack: \(detail)"
        }
    }
}

/// Little-endian reads at fixed offsets of a buffer whose length the caller checked.
private struct LittleEndian {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
    func u64(_ at: Int) -> Int {
        let high = u32(at + 4)
        // Offsets past Int.max (or 2^62 here) cannot be real; make them fail the bounds checks.
        return high >= 1 << 30 ? Int.max : u32(at) | high << 32
    }
}

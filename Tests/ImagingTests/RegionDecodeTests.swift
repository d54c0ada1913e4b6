import Testing
import ImagingFixtures
@testable import Imaging

/// `ImageDecoder.decodeRegion`: a part of a JPEG decoded alone must be exactly the
/// same part of the whole decode, wherever it lies (iMCU edges, the image's edges,
/// chroma upsampling's context rows and columns), or nil so the caller decodes whole.
@Suite struct RegionDecodeTests {
    /// Odd sizes: the last iMCU row and column are partial.
    static let photo = TestImages.textured(width: 613, height: 421)
    /// Colour noise: chroma that changes from pixel to pixel, so an upsampling that
    /// differs at a crop's edge shows in every row (the texture's chroma is smooth).
    static let colourNoise = TestImages.noise(width: 613, height: 421, channels: 3)

    /// Rectangles on and off the 16-pixel iMCU grid, at every edge, one pixel wide.
    static let rects: [TileRect] = [
        TileRect(x: 0, y: 0, width: 258, height: 258), TileRect(x: 255, y: 255, width: 258, height: 166),
        TileRect(x: 16, y: 16, width: 16, height: 16), TileRect(x: 17, y: 15, width: 33, height: 31),
        TileRect(x: 1, y: 1, width: 1, height: 1), TileRect(x: 612, y: 420, width: 1, height: 1),
        TileRect(x: 511, y: 0, width: 102, height: 421), TileRect(x: 0, y: 0, width: 613, height: 421),
        TileRect(x: 300, y: 7, width: 5, height: 400), TileRect(x: 0, y: 0, width: 1, height: 1),
        TileRect(x: 0, y: 5, width: 2, height: 3),
    ]

    static func crop(_ image: PixelBuffer, _ rect: TileRect) -> [UInt8] {
        var out: [UInt8] = []
        for y in rect.y..<rect.maxY {
            let start = (y * image.width + rect.x) * image.channels
            out += image.bytes[start..<start + rect.width * image.channels]
        }
        return out
    }

    @Test(arguments: [false, true])
    func aRegionIsTheSamePartOfTheWholeDecode(progressive: Bool) throws {
        for image in [Self.photo, Self.colourNoise] {
            let file = try JPEGEncoder.encode(image, quality: 85, progressive: progressive)
            let whole = try ImageDecoder.decode(file)
            for rect in Self.rects {
                let part = try #require(try ImageDecoder.decodeRegion(file, rect), "\(rect)")
                #expect(part.width == rect.width && part.height == rect.height && part.channels == 3)
                #expect(part.bytes == Self.crop(whole, rect), "\(rect)")
            }
        }
    }

    @Test func greyAndTaggedFilesToo() throws {
        let grey = try JPEGEncoder.encode(Self.photo, options: .init(quality: 90, colorSpace: .grayscale))
        let tagged = try JPEGEncoder.encode(Self.photo, options: .init(quality: 90, iccProfile: try ICCProfile.make(.displayP3)))
        for file in [grey, tagged] {
            let whole = try ImageDecoder.decode(file)
            for rect in Self.rects.prefix(4) {
                let part = try #require(try ImageDecoder.decodeRegion(file, rect))
                #expect(part.bytes == Self.crop(whole, rect), "\(rect)")
            }
        }
        // The P3 file really was converted, as the whole decode converts it.
        let raw = try ImageDecoder.decodeRegion(tagged, Self.rects[0], options: .init(convertToSRGB: false))
        #expect(raw?.bytes != (try ImageDecoder.decodeRegion(tagged, Self.rects[0]))?.bytes)
    }

    @Test func filesThatCannotBeDecodedInPartExactlyGiveNil() throws {
        let rect = TileRect(x: 0, y: 0, width: 64, height: 64)
        let turned = try JPEGEncoder.encode(Self.photo, options: .init(exifOrientation: .right))
        #expect(try ImageDecoder.decodeRegion(turned, rect) == nil)
        let ink = [UInt8](repeating: 60, count: 64 * 64 * 4)
        #expect(try ImageDecoder.decodeRegion(try JPEGEncoder.encodeCMYK(ink: ink, width: 64, height: 64), rect) == nil)
        #expect(try ImageDecoder.decodeRegion(try PNGEncoder.encode(Self.photo), rect) == nil)
        #expect(try ImageDecoder.decodeRegion(try JPEGEncoder.encode(Self.photo), rect, options: .init(scaleDenominator: 2)) == nil)
        // Data that ends inside the rectangle: the whole decode shows the damage.
        let file = try JPEGEncoder.encode(Self.photo, quality: 85)
        let cut = Array(file.prefix(file.count / 3))
        #expect(try ImageDecoder.decodeRegion(cut, TileRect(x: 0, y: 300, width: 64, height: 64)) == nil)
        // Ends after it: the rows read are whole, and the same as the whole decode's.
        let early = try #require(try ImageDecoder.decodeRegion(cut, rect))
        #expect(early.bytes == Self.crop(try ImageDecoder.decode(cut), rect))
    }

    @Test func aRectangleOutsideTheImageOrOverTheLimitIsRefused() throws {
        let file = try JPEGEncoder.encode(Self.photo)
        #expect(throws: ImagingError.self) { try ImageDecoder.decodeRegion(file, TileRect(x: 600, y: 0, width: 14, height: 1)) }
        #expect(throws: ImagingError.self) { try ImageDecoder.decodeRegion(file, TileRect(x: 0, y: 0, width: 0, height: 1)) }
        #expect(throws: ImagingError.self) {
            try ImageDecoder.decodeRegion(file, TileRect(x: 0, y: 0, width: 8, height: 8), options: .init(maxPixels: 1000))
        }
    }

    /// The server's path: the tile made from the region under it is the tile made
    /// from the whole image, at every level and position where the region is smaller.
    @Test(arguments: [PyramidLayout.deepZoom, .iiif3])
    func aTileFromItsRegionIsTheTileFromTheWholeImage(layout: PyramidLayout) throws {
        let file = try JPEGEncoder.encode(Self.photo, quality: 85)
        let whole = try ImageDecoder.decode(file)
        let options = TilePyramidOptions(tileSize: 128, overlap: layout == .deepZoom ? 1 : 0)
        let geometry = try PyramidGeometry(width: 613, height: 421, tileSize: 128, overlap: options.overlap)
        var checked = 0
        for level in geometry.levels.suffix(3) {
            for row in 0..<level.rows {
                for column in 0..<level.columns {
                    let source = try TilePyramidBuilder.sourceRect(
                        width: 613, height: 421, level: level.index, column: column, row: row, layout: layout, options: options)
                    let region = try #require(try ImageDecoder.decodeRegion(file, source))
                    let fromRegion = try TilePyramidBuilder.tile(
                        ofRegion: region, imageWidth: 613, imageHeight: 421, level: level.index, column: column, row: row,
                        layout: layout, options: options)
                    let fromWhole = try TilePyramidBuilder.tile(
                        of: whole, level: level.index, column: column, row: row, layout: layout, options: options)
                    #expect(fromRegion == fromWhole, "level \(level.index) \(column)_\(row)")
                    checked += 1
                }
            }
        }
        #expect(checked > 20)
        // A region that is not the tile's source is refused, not misread.
        #expect(throws: ImagingError.self) {
            try TilePyramidBuilder.tile(ofRegion: TestImages.gradient(width: 10, height: 10), imageWidth: 613, imageHeight: 421,
                                        level: geometry.maxLevel, column: 0, row: 0, layout: layout, options: options)
        }
    }
}

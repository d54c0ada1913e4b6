import Testing
@testable import Imaging

/// EXIF orientation end to end: written by the encoder (big-endian TIFF) or
/// spliced in by hand (little-endian), read from the header, applied on decode.
@Suite struct OrientationTests {
    /// Where the stored top-left and top-right quadrants must appear once
    /// displayed, from the EXIF definition of each value ("row 0 is at the
    /// right, column 0 at the top" for 6, and so on). Corners are indexed
    /// 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right.
    static let cornerMap: [ImageOrientation: (topLeftGoesTo: Int, topRightGoesTo: Int)] = [
        .up: (0, 1), .upMirrored: (1, 0), .down: (3, 2), .downMirrored: (2, 3),
        .leftMirrored: (0, 2), .right: (1, 3), .rightMirrored: (3, 1), .left: (2, 0),
    ]

    func corner(_ image: PixelBuffer, _ index: Int) -> [UInt8] {
        let x = index % 2 == 0 ? 4 : image.width - 5
        let y = index < 2 ? 4 : image.height - 5
        return TestImages.pixel(image, x, y)
    }

    @Test(arguments: ImageOrientation.allCases)
    func encoderTagIsReadAndApplied(orientation: ImageOrientation) throws {
        let stored = TestImages.quadrants(width: 64, height: 32)
        let file = try JPEGEncoder.encode(stored, options: .init(quality: 95, exifOrientation: orientation))
        let info = try ImageDecoder.info(of: file)
        #expect(info.orientation == orientation)
        #expect(info.displayWidth == (orientation.swapsDimensions ? 32 : 64))

        let shown = try ImageDecoder.decode(file)
        #expect(shown.width == info.displayWidth && shown.height == info.displayHeight)
        let map = try #require(Self.cornerMap[orientation])
        #expect(TestImages.close(corner(shown, map.topLeftGoesTo), TestImages.quadrantColors[0], tolerance: 10))
        #expect(TestImages.close(corner(shown, map.topRightGoesTo), TestImages.quadrantColors[1], tolerance: 10))

        let raw = try ImageDecoder.decode(file, options: DecodeOptions(applyOrientation: false))
        #expect(raw.width == 64 && raw.height == 32)
        #expect(TestImages.close(corner(raw, 1), TestImages.quadrantColors[1], tolerance: 10))
    }

    /// PNG's eXIf chunk (PNG 3rd edition) turns the picture as JPEG's Exif does, as
    /// browsers show it: in full decodes and in thumbnails.
    @Test(arguments: [ImageOrientation.right, .down, .leftMirrored])
    func pngExifChunkIsApplied(orientation: ImageOrientation) throws {
        let stored = TestImages.quadrants(width: 40, height: 20)
        let file = try PNGEncoder.encode(stored, exifOrientation: orientation)
        let info = try ImageDecoder.info(of: file)
        #expect(info.orientation == orientation)
        #expect(try ImageDecoder.decode(file) == stored.oriented(orientation))
        let thumb = try Thumbnailer.thumbnail(file, longEdge: 20)
        #expect(thumb.image.width == (orientation.swapsDimensions ? 10 : 20))
        // Without the chunk: as stored.
        #expect(try ImageDecoder.info(of: PNGEncoder.encode(stored)).orientation == .up)
    }

    @Test func readsLittleEndianExif() throws {
        let plain = try JPEGEncoder.encode(TestImages.quadrants(width: 32, height: 16))
        let tagged = JPEGSurgery.insertingAPP1(JPEGSurgery.littleEndianExif(value: 6), into: plain)
        #expect(try ImageDecoder.info(of: tagged).orientation == .right)
        let shown = try ImageDecoder.decode(tagged)
        #expect(shown.width == 16 && shown.height == 32)
    }

    @Test func skipsNonExifAPP1Segments() throws {
        let plain = try JPEGEncoder.encode(TestImages.quadrants(width: 16, height: 16))
        let xmp = Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>".utf8)
        let tagged = JPEGSurgery.insertingAPP1(
            xmp, into: JPEGSurgery.insertingAPP1(JPEGSurgery.littleEndianExif(value: 3), into: plain))
        #expect(try ImageDecoder.info(of: tagged).orientation == .down)
    }

    /// Malformed Exif never traps and never invents a rotation.
    @Test(arguments: [
        JPEGSurgery.littleEndianExif(value: 9),                         // out of range
        JPEGSurgery.littleEndianExif(value: 0),
        JPEGSurgery.littleEndianExif(type: 4, value: 6),                // LONG, not SHORT
        JPEGSurgery.littleEndianExif(value: 6, ifdOffset: 0xFFFF_FFF0), // IFD beyond the segment
        JPEGSurgery.littleEndianExif(value: 6, ifdOffset: 25),          // IFD straddling the end
        JPEGSurgery.littleEndianExif(tag: 0x010F, value: 6, entries: 0xFFFF), // more entries than bytes
        Array(JPEGSurgery.littleEndianExif(value: 6).prefix(12)),       // cut inside the TIFF header
        Array("Exif".utf8) + [0, 0] + Array("XX".utf8) + [42, 0, 8, 0, 0, 0],
    ])
    func ignoresMalformedExif(payload: [UInt8]) throws {
        let plain = try JPEGEncoder.encode(TestImages.quadrants(width: 16, height: 8))
        let tagged = JPEGSurgery.insertingAPP1(payload, into: plain)
        #expect(try ImageDecoder.info(of: tagged).orientation == .up)
        #expect(try ImageDecoder.decode(tagged).width == 16)
    }
}

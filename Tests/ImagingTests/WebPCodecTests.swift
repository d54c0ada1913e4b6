import Testing
@testable import Imaging

/// WebP files made by libwebp through ``WebPEncoder``, read back by ``ImageDecoder``.
@Suite struct WebPCodecTests {
    @Test func losslessRoundTripIsExactWithAndWithoutAlpha() throws {
        for channels in [3, 4] {
            let image = TestImages.noise(width: 37, height: 23, channels: channels)
            let file = try WebPEncoder.encode(image, options: .init(lossless: true))
            #expect(ImageFormat.sniff(file) == .webp)
            let info = try ImageDecoder.info(of: file)
            #expect(info.format == .webp && info.width == 37 && info.height == 23 && info.channels == channels)
            let decoded = try ImageDecoder.decode(file)
            // Lossless is exact wherever a pixel is visible (libwebp may clear fully transparent colours).
            let same = stride(from: 0, to: image.bytes.count, by: channels).allSatisfy { i in
                channels == 4 && image.bytes[i + 3] == 0
                    ? decoded.bytes[i + 3] == 0 : decoded.bytes[i..<(i + channels)] == image.bytes[i..<(i + channels)]
            }
            #expect(same && decoded.channels == channels)
        }
    }

    @Test func lossyIsCloseAndAlphaSurvives() throws {
        let image = TestImages.natural(width: 160, height: 120)
        let decoded = try ImageDecoder.decode(try WebPEncoder.encode(image, options: .init(quality: 90)))
        #expect(decoded.channels == 3)
        #expect(TestImages.psnr(decoded, image) > 30)
        var rgba = image.withAlpha()
        rgba.withUnsafeMutableBytes { bytes in
            for i in stride(from: 3, to: bytes.count, by: 4) { bytes[i] = UInt8((i / 4) % 160 * 255 / 159) }
        }
        let withAlpha = try ImageDecoder.decode(try WebPEncoder.encode(rgba, options: .init(quality: 90)))
        #expect(withAlpha.channels == 4)
        // libwebp keeps alpha losslessly by default, even in a lossy file.
        #expect(stride(from: 3, to: rgba.bytes.count, by: 4).allSatisfy { withAlpha.bytes[$0] == rgba.bytes[$0] })
    }

    /// libwebp's scaled decoding: the size libjpeg would give (rounded up), and a
    /// picture close to decoding in full and box-reducing.
    @Test func decodesScaledForThumbnails() throws {
        let image = TestImages.natural(width: 203, height: 150)
        let file = try WebPEncoder.encode(image, options: .init(lossless: true))
        #expect(try ImageDecoder.info(of: file).scalesOnLoad)
        let quarter = try ImageDecoder.decode(file, options: .init(scaleDenominator: 4))
        #expect(quarter.width == 51 && quarter.height == 38)
        let thumb = try Thumbnailer.thumbnail(file, longEdge: 50)
        #expect(thumb.image.width == 50)
        let reference = try Thumbnailer.thumbnail(try PNGEncoder.encode(image), longEdge: 50)
        #expect(TestImages.psnr(thumb.image, reference.image) > 30)
    }

    /// Cameras and converters keep EXIF in WebP's EXIF chunk: the picture is turned upright,
    /// in full decodes and in thumbnails decoded at their size, as browsers show it.
    @Test func exifOrientationIsApplied() throws {
        let image = TestImages.quadrants(width: 40, height: 20)
        let file = try WebPEncoder.encode(image, options: .init(lossless: true, exifOrientation: .right))
        let info = try ImageDecoder.info(of: file)
        #expect(info.orientation == .right && info.displayWidth == 20 && info.displayHeight == 40)
        let upright = try ImageDecoder.decode(file)
        #expect(upright == image.oriented(.right))
        let thumb = try Thumbnailer.thumbnail(file, longEdge: 20)
        #expect(thumb.image.width == 10 && thumb.image.height == 20)
    }

    @Test func animationGivesItsFirstFrameAndCountsFrames() throws {
        let red = TestImages.solid(width: 20, height: 10, color: [250, 10, 10])
        let blue = TestImages.solid(width: 20, height: 10, color: [10, 10, 250])
        let green = TestImages.solid(width: 20, height: 10, color: [10, 250, 10])
        let file = try WebPEncoder.encodeAnimation([red, blue, green])
        let info = try ImageDecoder.info(of: file)
        #expect(info.frames == 3)
        #expect(!info.scalesOnLoad)
        let decoded = try ImageDecoder.decode(file, options: .init(scaleDenominator: 2))
        #expect(decoded.width == 20 && decoded.height == 10)
        #expect(TestImages.pixel(decoded, 5, 5).prefix(3) == [250, 10, 10])
    }

    @Test func damagedFilesAreRefusedWithAReason() throws {
        let file = try WebPEncoder.encode(TestImages.natural(width: 64, height: 64), options: .init(quality: 80))
        #expect(throws: ImagingError.self) { try ImageDecoder.decode(Array(file.prefix(file.count / 2))) }
        var corrupt = file
        for i in stride(from: 40, to: corrupt.count, by: 7) { corrupt[i] ^= 0x5A }
        #expect(throws: ImagingError.self) { try ImageDecoder.decode(corrupt) }
        #expect(throws: ImagingError.self) { try ImageDecoder.decode(Array(file.prefix(20))) }
    }

    @Test func pixelLimitIsCheckedFromTheHeader() throws {
        let file = try WebPEncoder.encode(TestImages.gradient(width: 100, height: 100), options: .init(lossless: true))
        #expect(throws: ImagingError.tooManyPixels(width: 100, height: 100, limit: 9_999)) {
            try ImageDecoder.decode(file, options: .init(maxPixels: 9_999))
        }
    }
}

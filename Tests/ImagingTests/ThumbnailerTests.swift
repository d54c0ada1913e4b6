import Testing
@testable import Imaging

/// Thumbnails end to end: sizes, orientation, alpha, no upscaling, damaged input.
@Suite struct ThumbnailerTests {
    /// The size rule, restated in integers: round half up of short * long edge / long.
    static func expectedSize(_ width: Int, _ height: Int, _ longEdge: Int) -> (Int, Int) {
        let long = max(width, height)
        if long <= longEdge { return (width, height) }
        let short = max(1, (2 * min(width, height) * longEdge + long) / (2 * long))
        return width >= height ? (longEdge, short) : (short, longEdge)
    }

    @Test func sizeRuleForManyAspectRatios() {
        for width in [1, 2, 3, 7, 99, 100, 101, 255, 256, 257, 675, 1200, 1536, 3000, 4096, 100_000] {
            for height in [1, 2, 5, 64, 255, 256, 333, 768, 1024, 4096, 99_999] {
                for longEdge in [1, 2, 64, 150, 256, 600] {
                    let size = Thumbnailer.size(width: width, height: height, longEdge: longEdge)
                    let expected = Self.expectedSize(width, height, longEdge)
                    #expect(size == expected, "\(width)x\(height) at \(longEdge)")
                }
            }
        }
        #expect(Thumbnailer.size(width: 1200, height: 675, longEdge: 256) == (256, 144))
        #expect(Thumbnailer.size(width: 1, height: 5000, longEdge: 256) == (1, 256))
        #expect(Thumbnailer.size(width: 5000, height: 1, longEdge: 256) == (256, 1))
        #expect(Thumbnailer.size(width: 100, height: 50, longEdge: 256, allowUpscale: true) == (256, 128))
    }

    @Test(arguments: [(300, 1), (1, 300), (2, 999), (999, 2), (640, 480), (480, 640), (1000, 17), (257, 256), (100, 100)])
    func jpegThumbnailHasExactSize(width: Int, height: Int) throws {
        let file = try JPEGEncoder.encode(TestImages.gradient(width: width, height: height), quality: 90)
        for longEdge in [1, 64, 256] {
            let thumb = try Thumbnailer.thumbnail(file, longEdge: longEdge)
            let expected = Self.expectedSize(width, height, longEdge)
            #expect((thumb.width, thumb.height) == expected, "\(width)x\(height) at \(longEdge)")
            #expect(thumb.sourceWidth == width && thumb.sourceHeight == height)
            #expect(thumb.format == .jpeg && thumb.image.channels == 3)
            let info = try ImageDecoder.info(of: thumb.encoded)
            #expect(info.format == .jpeg && info.width == thumb.width && info.height == thumb.height)
        }
    }

    @Test func orientedSourceGivesAnUprightSwappedThumbnail() throws {
        // Stored 200x100 landscape, tagged "rotate 90 clockwise": a 100x200 portrait.
        let stored = TestImages.quadrants(width: 200, height: 100)
        let file = try JPEGEncoder.encode(stored, options: .init(quality: 95, exifOrientation: .right))
        let thumb = try Thumbnailer.thumbnail(file, longEdge: 50)
        #expect(thumb.width == 25 && thumb.height == 50)
        #expect(thumb.sourceWidth == 100 && thumb.sourceHeight == 200)
        // Orientation 6: the stored top-left quadrant ends up top-right, stored top-right bottom-right.
        #expect(TestImages.close(TestImages.pixel(thumb.image, 20, 5), TestImages.quadrantColors[0], tolerance: 12))
        #expect(TestImages.close(TestImages.pixel(thumb.image, 20, 44), TestImages.quadrantColors[1], tolerance: 12))
        #expect(TestImages.close(TestImages.pixel(thumb.image, 4, 5), TestImages.quadrantColors[2], tolerance: 12))
        // The same as thumbnailing the upright decode: rotating after resizing changes nothing.
        let full = try Thumbnailer.thumbnail(file, longEdge: 50, options: .init(shrinkOnLoad: false))
        let upright = try Thumbnailer.thumbnail(try ImageDecoder.decode(file), longEdge: 50)
        #expect(TestImages.maxDifference(full.image, upright.image) <= 1)
        let info = try ImageDecoder.info(of: thumb.encoded)
        #expect(info.orientation == .up && info.width == 25 && info.height == 50)
    }

    @Test func alphaSourceGivesPNGWithAlpha() throws {
        var bytes = [UInt8]()
        for y in 0..<200 {
            for x in 0..<300 {
                bytes += [UInt8(x * 255 / 299), UInt8(y * 255 / 199), 90, x < 150 ? 0 : 128]
            }
        }
        let source = try PixelBuffer(width: 300, height: 200, channels: 4, bytes: bytes)
        let file = try PNGEncoder.encode(source)
        let thumb = try Thumbnailer.thumbnail(file, longEdge: 60)
        #expect(thumb.format == .png && thumb.width == 60 && thumb.height == 40)
        #expect(ImageFormat.sniff(thumb.encoded) == .png)
        let decoded = try ImageDecoder.decode(thumb.encoded)
        #expect(decoded == thumb.image)
        #expect(decoded.channels == 4)
        #expect(TestImages.pixel(decoded, 5, 20)[3] == 0)
        #expect(TestImages.pixel(decoded, 55, 20)[3] == 128)
        // Opaque PNGs become JPEG thumbnails.
        let opaque = try PNGEncoder.encode(TestImages.gradient(width: 300, height: 200))
        #expect(try Thumbnailer.thumbnail(opaque, longEdge: 60).format == .jpeg)
    }

    @Test func smallSourcesAreNotEnlarged() throws {
        let source = TestImages.gradient(width: 100, height: 50)
        let jpeg = try JPEGEncoder.encode(source, quality: 95)
        let thumb = try Thumbnailer.thumbnail(jpeg, longEdge: 256)
        #expect(thumb.width == 100 && thumb.height == 50)
        #expect(thumb.image == (try ImageDecoder.decode(jpeg)))
        #expect(try ImageDecoder.info(of: thumb.encoded).width == 100)

        let png = try PNGEncoder.encode(source)
        let same = try Thumbnailer.thumbnail(png, longEdge: 100)
        #expect(same.image == source && same.format == .jpeg)

        let enlarged = try Thumbnailer.thumbnail(jpeg, longEdge: 256, options: .init(allowUpscale: true))
        #expect(enlarged.width == 256 && enlarged.height == 128)
    }

    @Test func decodedImagesCanBeThumbnailedDirectly() throws {
        let source = TestImages.natural(width: 320, height: 240)
        let thumb = try Thumbnailer.thumbnail(source, longEdge: 80, options: .init(quality: 95))
        #expect(thumb.width == 80 && thumb.height == 60 && thumb.format == .jpeg)
        #expect(thumb.sourceWidth == 320 && thumb.sourceHeight == 240)
        let reference = TestImages.boxReduced(source, factor: 4, linearLight: true)
        #expect(TestImages.psnr(thumb.image, reference) >= 30)
        // The stored file is the same picture at JPEG quality.
        #expect(TestImages.psnr(try ImageDecoder.decode(thumb.encoded), thumb.image) >= 35)
    }

    @Test func quality85IsTheDefaultAndConfigurable() throws {
        let file = try JPEGEncoder.encode(TestImages.natural(width: 400, height: 300), quality: 95)
        let normal = try Thumbnailer.thumbnail(file, longEdge: 200)
        let low = try Thumbnailer.thumbnail(file, longEdge: 200, options: .init(quality: 20))
        #expect(low.encoded.count < normal.encoded.count)
        #expect(normal.image == low.image)
    }

    @Test func badOptionsAreRefusedUpFront() throws {
        let file = try JPEGEncoder.encode(TestImages.gradient(width: 64, height: 64))
        for (longEdge, options) in [
            (0, ThumbnailOptions()), (-5, ThumbnailOptions()), (64, ThumbnailOptions(quality: 0)),
            (64, ThumbnailOptions(quality: 101)), (64, ThumbnailOptions(maxPixels: 0)), (64, ThumbnailOptions(maxThreads: 0)),
        ] {
            #expect(throws: ImagingError.self) { try Thumbnailer.thumbnail(file, longEdge: longEdge, options: options) }
        }
        #expect(throws: ImagingError.tooManyPixels(width: 64, height: 64, limit: 1000)) {
            try Thumbnailer.thumbnail(file, longEdge: 32, options: .init(maxPixels: 1000))
        }
        #expect(throws: ImagingError.tooManyPixels(width: 100_000, height: 100_000, limit: 100_000_000)) {
            try Thumbnailer.thumbnail(file, longEdge: 100_000, options: .init(allowUpscale: true))
        }
    }

    @Test func damagedFilesGiveErrorsNotCrashes() throws {
        let jpeg = try JPEGEncoder.encode(TestImages.natural(width: 640, height: 480), quality: 85)
        let png = try PNGEncoder.encode(TestImages.noise(width: 120, height: 90, channels: 4))
        // Every cut, decoded at full size and through each shrink-on-load scale: refused
        // with an ImagingError, or shown as browsers show it and said to be damaged.
        for cut in Swift.stride(from: 0, to: jpeg.count, by: 211) {
            for longEdge in [320, 160, 80, 40] {
                do {
                    let thumb = try Thumbnailer.thumbnail(Array(jpeg.prefix(cut)), longEdge: longEdge)
                    #expect(thumb.damage != nil, "JPEG cut at \(cut), \(longEdge)")
                    #expect(thumb.sourceWidth == 640 && thumb.sourceHeight == 480)
                } catch {
                    _ = error  // typed throws: an ImagingError, never a trap
                }
            }
        }
        let partial = try Thumbnailer.thumbnail(Array(jpeg.prefix(jpeg.count * 2 / 3)), longEdge: 40)
        #expect(partial.damage?.reason.contains("the data ends after row") == true, "\(String(describing: partial.damage))")
        for cut in Swift.stride(from: 0, to: png.count, by: 61) {
            #expect(throws: ImagingError.self, "PNG cut at \(cut)") {
                try Thumbnailer.thumbnail(Array(png.prefix(cut)), longEdge: 50)
            }
        }
        var garbled = jpeg
        let scan = try #require(JPEGSurgery.scanData(garbled))
        for i in Swift.stride(from: scan + 100, to: garbled.count - 2, by: 50) { garbled[i] = 0xFF; garbled[i + 1] = 0xD0 + UInt8(i % 8) }
        #expect(try Thumbnailer.thumbnail(garbled, longEdge: 40).damage != nil)
        #expect(throws: ImagingError.unrecognizedFormat) { try Thumbnailer.thumbnail(Array("not an image".utf8), longEdge: 40) }
        #expect(throws: ImagingError.unrecognizedFormat) { try Thumbnailer.thumbnail([], longEdge: 40) }
        let huge = JPEGSurgery.settingSize(width: 60000, height: 60000, of: jpeg)
        #expect(throws: ImagingError.tooManyPixels(width: 60000, height: 60000, limit: 100_000_000)) {
            try Thumbnailer.thumbnail(huge, longEdge: 40)
        }
    }
}

import Testing
@testable import Imaging

/// JPEG is lossy, so round trips are judged by PSNR. On smooth gradients
/// libjpeg-turbo at quality 90 with 4:2:0 chroma typically lands near 40 dB;
/// the bounds below leave a margin of several dB while still failing for any
/// real fault (wrong colour conversion, channel order or row stride gives
/// well under 20 dB).
@Suite struct JPEGCodecTests {
    @Test(arguments: [(64, 48), (33, 17), (1, 1), (250, 3)])
    func roundTripsWithinTolerance(width: Int, height: Int) throws {
        let image = TestImages.gradient(width: width, height: height)
        for progressive in [false, true] {
            let file = try JPEGEncoder.encode(image, quality: 90, progressive: progressive)
            #expect(ImageFormat.sniff(file) == .jpeg)
            let info = try ImageDecoder.info(of: file)
            #expect(info == ImageInfo(format: .jpeg, width: width, height: height, channels: 3,
                                      hasAlpha: false, orientation: .up, progressive: progressive))
            let decoded = try ImageDecoder.decode(file)
            #expect(decoded.width == width && decoded.height == height && decoded.channels == 3)
            #expect(TestImages.psnr(decoded, image) > 34, "progressive: \(progressive)")
        }
    }

    @Test func qualityTradesSizeForFidelity() throws {
        let image = TestImages.textured(width: 64, height: 64)
        let low = try JPEGEncoder.encode(image, quality: 20)
        let high = try JPEGEncoder.encode(image, quality: 98)
        #expect(low.count < high.count)
        let lowPSNR = TestImages.psnr(try ImageDecoder.decode(low), image)
        let highPSNR = TestImages.psnr(try ImageDecoder.decode(high), image)
        #expect(highPSNR > lowPSNR + 5)
    }

    @Test func optimizedCodingIsSmallerAndDecodesTheSame() throws {
        let image = TestImages.gradient(width: 128, height: 96)
        let plain = try JPEGEncoder.encode(image, options: .init(quality: 80))
        let optimized = try JPEGEncoder.encode(image, options: .init(quality: 80, optimizeCoding: true))
        #expect(optimized.count < plain.count)
        #expect(try ImageDecoder.decode(optimized) == ImageDecoder.decode(plain))
    }

    @Test func alphaIsFlattenedOverWhite() throws {
        let clear = try PixelBuffer(width: 16, height: 16, channels: 4)   // transparent black
        let decoded = try ImageDecoder.decode(try JPEGEncoder.encode(clear, quality: 95))
        #expect(decoded.bytes.allSatisfy { $0 >= 250 })
    }

    @Test func grayscaleFilesDecodeToEqualChannels() throws {
        let image = TestImages.gradient(width: 48, height: 40)
        let file = try JPEGEncoder.encode(image, options: .init(quality: 95, colorSpace: .grayscale))
        let decoded = try ImageDecoder.decode(file)
        #expect(decoded.channels == 3)
        var maxLumaError = 0
        for i in stride(from: 0, to: decoded.bytes.count, by: 3) {
            #expect(decoded.bytes[i] == decoded.bytes[i + 1] && decoded.bytes[i] == decoded.bytes[i + 2])
            let luma = (299 * Int(image.bytes[i]) + 587 * Int(image.bytes[i + 1]) + 114 * Int(image.bytes[i + 2])) / 1000
            maxLumaError = max(maxLumaError, abs(luma - Int(decoded.bytes[i])))
        }
        #expect(maxLumaError <= 6)
    }

    @Test(arguments: [JPEGEncoder.ColorSpace.cmyk, .ycck])
    func fourComponentFilesDecodeToRGB(space: JPEGEncoder.ColorSpace) throws {
        let image = TestImages.gradient(width: 40, height: 32)
        let file = try JPEGEncoder.encode(image, options: .init(quality: 95, colorSpace: space))
        let decoded = try ImageDecoder.decode(file)
        #expect(decoded.channels == 3)
        #expect(TestImages.psnr(decoded, image) > 32, "\(space)")
    }

    @Test(arguments: [2, 4, 8])
    func scalesInTheDCTDomain(denominator: Int) throws {
        let image = TestImages.gradient(width: 100, height: 61)
        let file = try JPEGEncoder.encode(image, quality: 95)
        let decoded = try ImageDecoder.decode(file, options: DecodeOptions(scaleDenominator: denominator))
        let width = (100 + denominator - 1) / denominator
        let height = (61 + denominator - 1) / denominator
        #expect(decoded.width == width && decoded.height == height)
        // The centre pixel of each output block matches the source near that block's centre.
        let x = width / 2, y = height / 2
        let source = TestImages.pixel(image, min(x * denominator + denominator / 2, 99), min(y * denominator + denominator / 2, 60))
        #expect(TestImages.close(TestImages.pixel(decoded, x, y), source, tolerance: 12))
    }

    @Test func refusesBadArguments() throws {
        let image = TestImages.gradient(width: 8, height: 8)
        #expect(throws: ImagingError.self) { try JPEGEncoder.encode(image, quality: 0) }
        #expect(throws: ImagingError.self) { try JPEGEncoder.encode(image, quality: 101) }
        let file = try JPEGEncoder.encode(image)
        #expect(throws: ImagingError.self) { try ImageDecoder.decode(file, options: DecodeOptions(scaleDenominator: 3)) }
        #expect(throws: ImagingError.self) { try ImageDecoder.decode(file, options: DecodeOptions(maxPixels: 0)) }
    }
}

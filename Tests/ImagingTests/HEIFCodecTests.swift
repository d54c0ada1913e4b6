import Testing
@testable import Imaging
import ImagingFixtures

/// AVIF and HEIC files made by libheif (libaom, x265) through ``HEIFEncoder``,
/// read back by ``ImageDecoder`` (dav1d, libde265).
@Suite struct HEIFCodecTests {
    @Test(arguments: [ImageFormat.avif, .heic])
    func roundTripsCloseToTheSource(format: ImageFormat) throws {
        let image = TestImages.natural(width: 96, height: 64)
        let file = try HEIFEncoder.encode(image, format: format, quality: 90)
        #expect(ImageFormat.sniff(file) == format)
        let info = try ImageDecoder.info(of: file)
        #expect(info.format == format && info.width == 96 && info.height == 64 && info.channels == 3)
        let decoded = try ImageDecoder.decode(file)
        #expect(TestImages.psnr(decoded, image) > 30)
    }

    @Test func avifKeepsAlpha() throws {
        var image = TestImages.natural(width: 64, height: 64).withAlpha()
        image.withUnsafeMutableBytes { bytes in
            for i in stride(from: 3, to: bytes.count, by: 4) where (i / 4) % 64 < 32 { bytes[i] = 0 }
        }
        let decoded = try ImageDecoder.decode(try HEIFEncoder.encode(image, format: .avif, quality: 90))
        #expect(decoded.channels == 4)
        #expect(TestImages.pixel(decoded, 5, 5)[3] < 16)
        #expect(TestImages.pixel(decoded, 50, 5)[3] > 240)
    }

    @Test func damagedFilesAreRefusedWithAReason() throws {
        let file = try HEIFEncoder.encode(TestImages.natural(width: 64, height: 64), format: .avif)
        #expect(throws: ImagingError.self) { try ImageDecoder.decode(Array(file.prefix(file.count / 2))) }
        var corrupt = file
        for i in stride(from: 60, to: corrupt.count, by: 5) { corrupt[i] ^= 0xA5 }
        #expect(throws: ImagingError.self) { try ImageDecoder.decode(corrupt) }
        #expect(throws: ImagingError.self) { try ImageDecoder.decode(Array(file.prefix(40))) }
    }

    @Test func pixelLimitIsCheckedFromTheHeader() throws {
        let file = try HEIFEncoder.encode(TestImages.gradient(width: 100, height: 80), format: .avif)
        #expect(throws: ImagingError.tooManyPixels(width: 100, height: 80, limit: 7_999)) {
            try ImageDecoder.decode(file, options: .init(maxPixels: 7_999))
        }
    }
}

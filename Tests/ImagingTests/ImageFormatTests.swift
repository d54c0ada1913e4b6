import Testing
@testable import Imaging

@Suite struct ImageFormatTests {
    @Test(arguments: [
        ([0xFF, 0xD8, 0xFF, 0xE0, 0, 16], ImageFormat.jpeg),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], .png),
        (Array("GIF89a".utf8) + [1, 0, 1, 0], .gif),
        (Array("GIF87a".utf8), .gif),
        (Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8), .webp),
    ] as [([UInt8], ImageFormat)])
    func sniffsMagicBytes(bytes: [UInt8], format: ImageFormat) {
        #expect(ImageFormat.sniff(bytes) == format)
        #expect(ImageFormat.sniff(bytes[...]) == format)
    }

    @Test(arguments: [
        [],
        [0xFF, 0xD8],                                   // too short for a JPEG
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A],     // PNG signature cut short
        Array("GIF88a".utf8),
        Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8),
        Array("<html><body>".utf8),
    ] as [[UInt8]])
    func refusesOtherBytes(bytes: [UInt8]) {
        #expect(ImageFormat.sniff(bytes) == nil)
        #expect(throws: ImagingError.unrecognizedFormat) { try ImageDecoder.decode(bytes) }
    }

    @Test func truncatedHeadersOfNewFormatsAreRefusedWithTheirFormat() {
        let gif = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0]
        #expect(throws: ImagingError.truncated(.gif)) { try ImageDecoder.info(of: gif) }
        let webp = Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8)
        #expect(throws: ImagingError.self) { try ImageDecoder.decode(webp) }
    }

    /// ISO BMFF files: AVIF and HEIF by their brands, also when the major brand is
    /// the generic `mif1` and `avif` comes among the compatible brands; video stays video.
    @Test(arguments: [
        ("avif", ["mif1", "miaf"], ImageFormat?.some(.avif)),
        ("mif1", ["avif", "miaf"], .avif),
        ("avis", ["avif", "msf1"], .avif),
        ("heic", ["mif1", "heic"], .heic),
        ("mif1", ["heic"], .heic),
        ("isom", ["iso2", "avc1", "mp41"], nil),
        ("mp42", ["isom"], nil),
    ] as [(String, [String], ImageFormat?)])
    func tellsAVIFAndHEIFFromVideo(major: String, compatible: [String], format: ImageFormat?) {
        let brands = compatible.flatMap { Array($0.utf8) }
        let size = 16 + brands.count
        let box = [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0] + brands
        #expect(ImageFormat.sniff(box + [0, 0, 0, 8] + Array("meta".utf8)) == format)
    }

    @Test func formatsDescribeThemselves() {
        #expect(ImageFormat.jpeg.mimeType == "image/jpeg")
        #expect(ImageFormat.png.fileExtension == "png")
        #expect(ImagingError.unsupportedFormat(.webp).description.contains("WebP"))
        #expect(ImagingError.tooManyPixels(width: 3, height: 4, limit: 5).description.contains("3x4"))
    }
}

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

    @Test func recognisedButUndecodableFormatsSaySo() {
        let gif = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0]
        #expect(throws: ImagingError.unsupportedFormat(.gif)) { try ImageDecoder.info(of: gif) }
        let webp = Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8)
        #expect(throws: ImagingError.unsupportedFormat(.webp)) { try ImageDecoder.decode(webp) }
    }

    @Test func formatsDescribeThemselves() {
        #expect(ImageFormat.jpeg.mimeType == "image/jpeg")
        #expect(ImageFormat.png.fileExtension == "png")
        #expect(ImagingError.unsupportedFormat(.webp).description.contains("WebP"))
        #expect(ImagingError.tooManyPixels(width: 3, height: 4, limit: 5).description.contains("3x4"))
    }
}

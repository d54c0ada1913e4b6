import Testing
@testable import Imaging
import ImagingFixtures

/// GIF files made by giflib through ``GIFEncoder``, read back by ``ImageDecoder``.
@Suite struct GIFCodecTests {
    static let palette: [UInt8] = [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]

    static func indices(width: Int, height: Int) -> [UInt8] {
        (0..<(width * height)).map { UInt8(($0 % width + $0 / width) % 4) }
    }

    static func expectedColor(_ x: Int, _ y: Int) -> [UInt8] {
        let index = (x + y) % 4
        return Array(palette[(3 * index)..<(3 * index + 3)])
    }

    @Test(arguments: [false, true])
    func decodesTheFirstFrameExactly(interlaced: Bool) throws {
        let file = try GIFEncoder.encode(
            indices: Self.indices(width: 13, height: 11), width: 13, height: 11, palette: Self.palette, interlaced: interlaced)
        let info = try ImageDecoder.info(of: file)
        #expect(info.format == .gif && info.width == 13 && info.height == 11 && !info.hasAlpha && info.frames == 1)
        #expect(info.progressive == interlaced)
        let image = try ImageDecoder.decode(file)
        for y in 0..<11 {
            for x in 0..<13 { #expect(TestImages.pixel(image, x, y) == Self.expectedColor(x, y)) }
        }
    }

    @Test func transparentIndexBecomesAlpha() throws {
        let file = try GIFEncoder.encode(
            indices: Self.indices(width: 8, height: 8), width: 8, height: 8, palette: Self.palette, transparentIndex: 0)
        let image = try ImageDecoder.decode(file)
        #expect(image.channels == 4)
        #expect(TestImages.pixel(image, 0, 0)[3] == 0)
        #expect(TestImages.pixel(image, 1, 0) == [255, 0, 0, 255])
    }

    /// Ten thousand frames cost what one does: later frames are counted, not decoded.
    @Test func tenThousandFramesAreCountedNotDecoded() throws {
        let file = try GIFEncoder.encode(
            indices: Self.indices(width: 4, height: 4), width: 4, height: 4, palette: Self.palette, frames: 10_000)
        let info = try ImageDecoder.info(of: file)
        #expect(info.frames == 10_000)
        let image = try ImageDecoder.decode(file)
        #expect(TestImages.pixel(image, 1, 0) == [255, 0, 0])
    }

    @Test func damagedFilesAreRefusedWithAReason() throws {
        let file = try GIFEncoder.encode(
            indices: Self.indices(width: 64, height: 64), width: 64, height: 64, palette: Self.palette)
        #expect(throws: ImagingError.truncated(.gif)) { try ImageDecoder.decode(Array(file.prefix(file.count - 30))) }
        #expect(throws: ImagingError.self) { try ImageDecoder.decode(Array(file.prefix(12))) }
        var noImage = Array(file.prefix(13 + 12))
        noImage.append(0x3B) // the trailer right after the screen and its colour table
        #expect(throws: ImagingError.self) { try ImageDecoder.decode(noImage) }
    }

    /// A frame's rows are decoded even off the canvas: one far larger than its canvas is refused
    /// from its descriptor, before any LZW data is read.
    @Test func aFrameFarLargerThanItsCanvasIsRefused() throws {
        var file = try GIFEncoder.encode(indices: [1], width: 1, height: 1, palette: Self.palette)
        // The image descriptor follows the screen (13 bytes), the 2-colour... 4-colour table and the GCE.
        let descriptor = try #require(file.indices.first { file[$0] == 0x2C && $0 > 13 })
        file[descriptor + 5] = 0x60; file[descriptor + 6] = 0xEA; file[descriptor + 7] = 0x60; file[descriptor + 8] = 0xEA
        #expect(throws: ImagingError.self) { try ImageDecoder.info(of: file) }
        #expect {
            try ImageDecoder.decode(file)
        } throws: { error in
            (error as? ImagingError)?.description.contains("far larger than its 1x1 canvas") == true
        }
    }

    @Test func pixelLimitIsCheckedFromTheHeader() throws {
        // A 1x1 frame on a 60000 x 60000 canvas: refused before a canvas is allocated.
        var file = try GIFEncoder.encode(indices: [1], width: 1, height: 1, palette: Self.palette)
        file[6] = 0x60; file[7] = 0xEA; file[8] = 0x60; file[9] = 0xEA
        #expect(throws: ImagingError.tooManyPixels(width: 60000, height: 60000, limit: 100_000_000)) {
            try ImageDecoder.decode(file)
        }
    }
}

import Testing
@testable import Imaging

@Suite struct PixelBufferTests {
    @Test func refusesInconsistentSizes() {
        #expect(throws: ImagingError.self) { try PixelBuffer(width: 2, height: 2, channels: 3, bytes: [0, 0, 0]) }
        #expect(throws: ImagingError.self) { try PixelBuffer(width: 1, height: 1, channels: 2, bytes: [0, 0]) }
        #expect(throws: ImagingError.self) { try PixelBuffer(width: 0, height: 5, channels: 3) }
        #expect(throws: ImagingError.self) { try PixelBuffer(width: Int.max / 2, height: 3, channels: 4) }
        let ok = try? PixelBuffer(width: 2, height: 3, channels: 4)
        #expect(ok?.bytes.count == 24)
        #expect(ok?.bytesPerRow == 8)
    }

    @Test func mutableAccessKeepsTheLayout() throws {
        var image = try PixelBuffer(width: 2, height: 1, channels: 3)
        image.withUnsafeMutableBytes { $0[4] = 9 }
        #expect(image.bytes == [0, 0, 0, 0, 9, 0])
    }

    /// Stored 3x2 image whose pixel values are their stored index 0-5:
    ///     0 1 2
    ///     3 4 5
    /// and how each EXIF orientation must display it (worked out from the
    /// EXIF definition of where row 0 and column 0 go).
    @Test(arguments: [
        (ImageOrientation.up, 3, [0, 1, 2, 3, 4, 5]),
        (.upMirrored, 3, [2, 1, 0, 5, 4, 3]),
        (.down, 3, [5, 4, 3, 2, 1, 0]),
        (.downMirrored, 3, [3, 4, 5, 0, 1, 2]),
        (.leftMirrored, 2, [0, 3, 1, 4, 2, 5]),
        (.right, 2, [3, 0, 4, 1, 5, 2]),
        (.rightMirrored, 2, [5, 2, 4, 1, 3, 0]),
        (.left, 2, [2, 5, 1, 4, 0, 3]),
    ])
    func orientsEveryExifCase(orientation: ImageOrientation, width: Int, expected: [Int]) throws {
        for channels in [3, 4] {
            let stored = try PixelBuffer(
                width: 3, height: 2, channels: channels,
                bytes: (0..<6).flatMap { i in (0..<channels).map { UInt8(i * 10 + $0) } })
            let shown = stored.oriented(orientation)
            #expect(shown.width == width)
            #expect(shown.height == 6 / width)
            #expect(shown.channels == channels)
            let labels = stride(from: 0, to: shown.bytes.count, by: channels).map { Int(shown.bytes[$0]) / 10 }
            #expect(labels == expected)
            #expect(shown.bytes[channels - 1] % 10 == UInt8(channels - 1), "channels stay in order")
        }
    }

    @Test func orientationsComposeLikeRotations() {
        let image = TestImages.noise(width: 5, height: 3, channels: 4)
        let quarter = image.oriented(.right)
        #expect(quarter.oriented(.right).oriented(.right).oriented(.right) == image)
        #expect(quarter.oriented(.left) == image)
        #expect(image.oriented(.down) == quarter.oriented(.right))
        #expect(image.oriented(.leftMirrored).oriented(.leftMirrored) == image)
        #expect(image.oriented(.upMirrored).oriented(.downMirrored) == image.oriented(.down))
    }

    @Test func flattensAlphaOverABackground() throws {
        let image = try PixelBuffer(
            width: 3, height: 1, channels: 4,
            bytes: [10, 20, 30, 255, 10, 20, 30, 0, 0, 0, 0, 128])
        #expect(image.flattened().bytes == [10, 20, 30, 255, 255, 255, 127, 127, 127])
        #expect(image.flattened(red: 0, green: 100, blue: 200).bytes == [10, 20, 30, 0, 100, 200, 0, 50, 100])
        let rgb = TestImages.gradient(width: 4, height: 4)
        #expect(rgb.flattened() == rgb)
    }
}

import Testing
@testable import Imaging

/// Hostile input: every failure must be an ImagingError for that item, never
/// a crash, a trap or a silently grey image.
@Suite struct DamagedInputTests {
    static let jpeg = try! JPEGEncoder.encode(TestImages.noise(width: 48, height: 40, channels: 3), quality: 80)
    static let png = try! PNGEncoder.encode(TestImages.noise(width: 30, height: 20, channels: 4))

    @Test func everyTruncatedJPEGFails() throws {
        let scan = try #require(JPEGSurgery.scanData(Self.jpeg))
        for length in 0..<Self.jpeg.count {
            let cut = Array(Self.jpeg.prefix(length))
            #expect(throws: ImagingError.self, "length \(length)") { try ImageDecoder.decode(cut) }
        }
        // Cut inside the entropy-coded data: libjpeg would fill grey; we report truncation.
        let middle = Array(Self.jpeg.prefix((scan + Self.jpeg.count) / 2))
        #expect(throws: ImagingError.truncated(.jpeg)) { try ImageDecoder.decode(middle) }
        // Only the end marker missing still counts: the file is incomplete.
        #expect(throws: ImagingError.truncated(.jpeg)) { try ImageDecoder.decode(Array(Self.jpeg.dropLast(2))) }
    }

    @Test func everyTruncatedPNGFails() throws {
        let idat = try #require(PNGSurgery.chunkOffset(Self.png, type: "IDAT"))
        for length in 0..<Self.png.count {
            let cut = Array(Self.png.prefix(length))
            #expect(throws: ImagingError.self, "length \(length)") { try ImageDecoder.decode(cut) }
            if length > idat + 8 {
                #expect(throws: ImagingError.truncated(.png), "length \(length)") { try ImageDecoder.decode(cut) }
            }
        }
    }

    @Test func markerInsideJPEGScanIsCorruption() throws {
        var damaged = Self.jpeg
        let scan = try #require(JPEGSurgery.scanData(damaged))
        damaged[scan + 40] = 0xFF
        damaged[scan + 41] = 0xD9   // EOI in the middle of the entropy-coded data
        #expect {
            try ImageDecoder.decode(damaged)
        } throws: { error in
            guard case .corrupt(.jpeg, let detail) = error as? ImagingError else { return false }
            return detail.contains("premature end of data segment")
        }
    }

    @Test func unsupportedJPEGPrecisionIsNamed() throws {
        var twelveBit = Self.jpeg
        let sof = try #require(JPEGSurgery.segment(twelveBit, marker: 0xC0))
        twelveBit[sof + 4] = 12
        #expect {
            try ImageDecoder.info(of: twelveBit)
        } throws: { error in
            guard case .unsupportedVariant(.jpeg, let detail) = error as? ImagingError else { return false }
            return detail.contains("12")
        }
    }

    @Test func zeroSizedJPEGIsCorrupt() throws {
        let empty = JPEGSurgery.settingSize(width: 0, height: 0, of: Self.jpeg)
        #expect(throws: ImagingError.self) { try ImageDecoder.decode(empty) }
    }

    @Test func pngChecksumMismatchesAreCorruption() throws {
        let idat = try #require(PNGSurgery.chunkOffset(Self.png, type: "IDAT"))
        let length = Int(Self.png[idat + 2]) << 8 | Int(Self.png[idat + 3])
        var badCRC = Self.png
        badCRC[idat + 8 + length] ^= 0x55   // the chunk's CRC itself
        #expect {
            try ImageDecoder.decode(badCRC)
        } throws: { error in
            guard case .corrupt(.png, let detail) = error as? ImagingError else { return false }
            return detail.contains("CRC")
        }
        var badData = Self.png
        badData[idat + 20] ^= 0x55          // compressed data: zlib notices before the CRC is read
        #expect {
            try ImageDecoder.decode(badData)
        } throws: { error in
            guard case .corrupt(.png, _) = error as? ImagingError else { return false }
            return true
        }
    }

    @Test func invalidPNGHeaderIsCorruption() {
        let file = PNGSurgery.signature + PNGSurgery.ihdr(width: 4, height: 4, bitDepth: 3, colorType: 2)
            + PNGSurgery.chunk("IEND", [])
        #expect(throws: ImagingError.self) { try ImageDecoder.info(of: file) }
    }

    /// Random byte damage anywhere: decoding either fails cleanly or yields an
    /// image of the declared size (small damage to entropy data can be invisible to libjpeg).
    @Test func randomByteDamageNeverCrashes() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(truncatingIfNeeded: state >> 1)
        }
        for original in [Self.jpeg, Self.png] {
            let expected = try? ImageDecoder.decode(original)
            for _ in 0..<300 {
                var damaged = original
                for _ in 0..<(1 + next() % 4) {
                    damaged[next() % damaged.count] = UInt8(truncatingIfNeeded: next())
                }
                if let image = try? ImageDecoder.decode(damaged) {
                    #expect(image.width == expected?.width && image.height == expected?.height)
                }
            }
        }
    }
}

/// The pixel limit is enforced from the header, before allocation, so a few
/// hundred bytes claiming ten gigapixels are refused instantly.
@Suite struct PixelLimitTests {
    @Test func hugePNGHeaderIsRefusedCheaply() throws {
        let bomb = PNGSurgery.signature + PNGSurgery.ihdr(width: 100_000, height: 100_000)
            + PNGSurgery.chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + PNGSurgery.chunk("IEND", [])
        let info = try ImageDecoder.info(of: bomb)
        #expect(info.width == 100_000 && info.height == 100_000)
        #expect(throws: ImagingError.tooManyPixels(width: 100_000, height: 100_000, limit: 100_000_000)) {
            try ImageDecoder.decode(bomb)
        }
    }

    @Test func hugeJPEGHeaderIsRefusedCheaply() throws {
        let small = try JPEGEncoder.encode(TestImages.gradient(width: 16, height: 16))
        let bomb = JPEGSurgery.settingSize(width: 65_000, height: 65_000, of: small)
        #expect(try ImageDecoder.info(of: bomb).width == 65_000)
        #expect(throws: ImagingError.tooManyPixels(width: 65_000, height: 65_000, limit: 100_000_000)) {
            try ImageDecoder.decode(bomb)
        }
    }

    @Test func limitIsInclusiveAndConfigurable() throws {
        let file = try PNGEncoder.encode(TestImages.gradient(width: 10, height: 10))
        #expect(try ImageDecoder.decode(file, options: DecodeOptions(maxPixels: 100)).width == 10)
        #expect(throws: ImagingError.tooManyPixels(width: 10, height: 10, limit: 99)) {
            try ImageDecoder.decode(file, options: DecodeOptions(maxPixels: 99))
        }
    }

    @Test func maximumPNGDimensionsDoNotOverflow() throws {
        let bomb = PNGSurgery.signature + PNGSurgery.ihdr(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF, bitDepth: 16, colorType: 6)
            + PNGSurgery.chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + PNGSurgery.chunk("IEND", [])
        // Even an unlimited caller gets a clean refusal: no allocation size can be computed.
        #expect(throws: ImagingError.tooManyPixels(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF, limit: Int.max / 4)) {
            try ImageDecoder.decode(bomb, options: DecodeOptions(maxPixels: Int.max))
        }
    }
}

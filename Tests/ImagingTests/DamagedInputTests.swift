import Testing
@testable import Imaging

/// Hostile input: every failure must be an ImagingError for that item, never
/// a crash or a trap; a damaged file browsers show is shown, and says it is damaged.
@Suite struct DamagedInputTests {
    static let jpeg = try! JPEGEncoder.encode(TestImages.noise(width: 48, height: 40, channels: 3), quality: 80)
    static let png = try! PNGEncoder.encode(TestImages.noise(width: 30, height: 20, channels: 4))

    /// A JPEG cut short shows what arrived, as browsers show it, and says so; one cut
    /// before its first row has nothing to show and is refused.
    @Test func aTruncatedJPEGShowsTheRowsThatArrived() throws {
        let scan = try #require(JPEGSurgery.scanData(Self.jpeg))
        let whole = try ImageDecoder.decode(Self.jpeg)
        for length in 0..<Self.jpeg.count {
            let cut = Array(Self.jpeg.prefix(length))
            do {
                let decoded = try ImageDecoder.decodeReporting(cut)
                #expect(length > scan, "length \(length): nothing of the scan arrived, yet it decoded")
                #expect(decoded.image.width == 48 && decoded.image.height == 40)
                if length < Self.jpeg.count - 2 { #expect(decoded.damage != nil, "length \(length)") }
            } catch {
                _ = error  // typed throws: an ImagingError, never a trap
            }
        }
        // Cut inside the entropy-coded data: the top rows are the whole file's, the rest filled.
        let middle = Array(Self.jpeg.prefix((scan + Self.jpeg.count) / 2))
        let decoded = try ImageDecoder.decodeReporting(middle)
        let damage = try #require(decoded.damage)
        #expect(damage.format == .jpeg)
        #expect(damage.reason.contains("the data ends after row") && damage.reason.contains("of 40"), "\(damage)")
        #expect(decoded.image.bytes.prefix(48 * 3 * 8) == whole.bytes.prefix(48 * 3 * 8), "the first block row is the whole file's")
        #expect(decoded.image.bytes != whole.bytes)
        // Data that ends before the first row has nothing to show.
        #expect(throws: ImagingError.truncated(.jpeg)) { try ImageDecoder.decode(Array(Self.jpeg.prefix(scan + 2))) }
        // Only the end marker missing: every row is there, nothing is damaged.
        let unended = try ImageDecoder.decodeReporting(Array(Self.jpeg.dropLast(2)))
        #expect(unended.damage == nil)
        #expect(unended.image == whole)
    }

    /// A progressive JPEG cut after its first scans shows a coarser whole image.
    @Test func aTruncatedProgressiveJPEGShowsItsFirstScans() throws {
        let progressive = try JPEGEncoder.encode(
            TestImages.natural(width: 64, height: 48), options: .init(quality: 85, progressive: true))
        let scan = try #require(JPEGSurgery.scanData(progressive))
        let decoded = try ImageDecoder.decodeReporting(Array(progressive.prefix(scan + (progressive.count - scan) / 2)))
        let damage = try #require(decoded.damage)
        #expect(damage.reason.contains("progressive"), "\(damage)")
        #expect(decoded.image.width == 64)
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

    /// Bad entropy data decodes as browsers show it (the damaged blocks filled), with
    /// libjpeg's own words for what was wrong.
    @Test func markerInsideJPEGScanIsShownWithTheDamageSaid() throws {
        var damaged = Self.jpeg
        let scan = try #require(JPEGSurgery.scanData(damaged))
        damaged[scan + 40] = 0xFF
        damaged[scan + 41] = 0xD9   // EOI in the middle of the entropy-coded data
        let decoded = try ImageDecoder.decodeReporting(damaged)
        let damage = try #require(decoded.damage)
        #expect(damage.reason.contains("premature end of data segment"), "\(damage)")
        #expect(damage.description.contains("shown as browsers show it"))
        #expect(decoded.image.width == 48 && decoded.image.height == 40)
    }

    /// A PNG whose only fault is an ancillary chunk's CRC decodes whole, as browsers
    /// decode it, and says which chunk was skipped; a critical chunk's CRC stays an error.
    @Test func anAncillaryChunksBadCRCIsSkippedAndSaid() throws {
        let idat = try #require(PNGSurgery.chunkOffset(Self.png, type: "IDAT"))
        var text = PNGSurgery.chunk("tEXt", Array("Comment\u{0}made by a test".utf8))
        text[text.count - 1] ^= 0x5A
        let file = Array(Self.png[..<idat]) + text + Array(Self.png[idat...])
        let decoded = try ImageDecoder.decodeReporting(file)
        #expect(decoded.image == (try ImageDecoder.decode(Self.png)))
        let damage = try #require(decoded.damage)
        #expect(damage.format == .png && damage.reason.contains("tEXt"), "\(damage)")
        #expect(try ImageDecoder.decodeReporting(Self.png).damage == nil)
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
                // Damage may hit the header's size too: an image has the size its header says.
                if let image = try? ImageDecoder.decode(damaged), let info = try? ImageDecoder.info(of: damaged) {
                    #expect(image.width == info.displayWidth && image.height == info.displayHeight)
                    #expect(expected != nil)
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

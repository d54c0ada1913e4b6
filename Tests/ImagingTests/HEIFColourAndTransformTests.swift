import Foundation
import Testing
@testable import Imaging
import ImagingFixtures

/// nclx transfer characteristics, HDR tone mapping and the transformations of
/// AVIF files made by libheif through ``HEIFEncoder`` with what phones write.
@Suite struct HEIFColourAndTransformTests {
    /// Patches of one colour each, `size` pixels square, stacked.
    static func patches(_ colours: [[UInt16]], size: Int = 16) -> [UInt16] {
        colours.flatMap { colour in (0..<(size * size)).flatMap { _ in colour } }
    }

    static func mean(_ image: PixelBuffer, patch: Int, size: Int = 16) -> [Double] {
        var sums = [0.0, 0.0, 0.0]
        for y in (patch * size + 4)..<(patch * size + size - 4) {
            for x in 4..<(size - 4) {
                let p = TestImages.pixel(image, x, y)
                for c in 0..<3 { sums[c] += Double(p[c]) }
            }
        }
        return sums.map { $0 / Double((size - 8) * (size - 8)) }
    }

    static func srgb(_ linear: Double) -> Double {
        let c = min(max(linear, 0), 1)
        return 255 * (c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055)
    }

    @Test func transferCharacteristicsAreTheCurvesTheyName() {
        #expect(ColorSource.ToneCurve(h273: 8) == .gamma(1))
        #expect(ColorSource.ToneCurve(h273: 4) == .gamma(2.2))
        #expect(ColorSource.ToneCurve(h273: 5) == .gamma(2.8))
        #expect(ColorSource.ToneCurve(h273: 16) == .pq)
        #expect(ColorSource.ToneCurve(h273: 18) == .hlg)
        for bt709Family in [1, 2, 6, 13, 14, 15] { #expect(ColorSource.ToneCurve(h273: bt709Family) == .sRGB) }
    }

    /// A Rec.2020 AVIF in linear light (nclx 9/8/6): its values are light, not sRGB codes.
    @Test func aLinearRec2020AVIFIsNotReadAsSRGB() throws {
        let linear: [Double] = [0.05, 0.2, 0.5]
        let samples = Self.patches(linear.map { v in Array(repeating: UInt16((v * 255).rounded()), count: 3) })
        var extras = HEIFEncoder.Extras()
        extras.nclx = (primaries: 9, transfer: 8, matrix: 6)
        let file = try HEIFEncoder.encode(samples: samples, bitDepth: 8, width: 16, height: 48, channels: 3, quality: 90, extras: extras)
        let decoded = try ImageDecoder.decode(file)
        for (patch, v) in linear.enumerated() {
            let got = Self.mean(decoded, patch: patch)
            // Grey stays grey through the primaries; the curve makes 0.2 light about 124, not 51.
            for c in 0..<3 { #expect(abs(got[c] - Self.srgb(Double(UInt16((v * 255).rounded())) / 255)) < 5, "patch \(patch): \(got)") }
        }
        #expect(try ImageDecoder.colorReport(of: file).summary.contains("linear light"))
    }

    static func pq(_ nits: Double, bits: Int = 12) -> UInt16 {
        UInt16((HDRToneMapper.nitsToPQ(nits) * Double((1 << bits) - 1)).rounded())
    }

    /// A 12-bit PQ AVIF (nclx 9/16/9, MaxCLL 1,000; libaom through libheif 1.15 cannot write 10-bit): what lies below the knee keeps its light,
    /// reference white and the peak are compressed into SDR, in order.
    @Test func aPQAVIFIsToneMappedByBT2408() throws {
        let nits: [Double] = [20, 80, 203, 1000]
        let samples = Self.patches(nits.map { Array(repeating: Self.pq($0), count: 3) })
        var extras = HEIFEncoder.Extras()
        extras.nclx = (primaries: 9, transfer: 16, matrix: 9)
        extras.maxContentLightLevel = 1000
        let file = try HEIFEncoder.encode(samples: samples, bitDepth: 12, width: 16, height: 64, channels: 3, quality: 90, extras: extras)
        #expect(HEIFProperties.read(file).maxContentLightLevel == 1000)
        let decoded = try ImageDecoder.decode(file)
        let levels = (0..<4).map { Self.mean(decoded, patch: $0)[1] }
        // Below the knee (about 93 cd/m² for a 1,000 cd/m² peak) light is kept: 20 and 80 of 203.
        #expect(abs(levels[0] - Self.srgb(20 / 203)) < 4, "\(levels)")
        #expect(abs(levels[1] - Self.srgb(80 / 203)) < 4, "\(levels)")
        // Reference white is compressed a little, the peak reaches white.
        #expect(levels[2] > levels[1] + 20 && levels[2] < 245, "\(levels)")
        #expect(levels[3] > 250, "\(levels)")
        let report = try ImageDecoder.colorReport(of: file)
        #expect(report.toneMapping?.contains("BT.2408 Annex 5 from a 1000 cd/m² peak (content light level)") == true,
                "\(report.summary)")
        // The same file read as if it were SDR (what was done before) is far off.
        let naive = try ImageDecoder.decode(file, options: DecodeOptions(convertToSRGB: false))
        #expect(abs(Self.mean(naive, patch: 1)[1] - levels[1]) > 20)
    }

    /// HLG at 75% signal is reference white on a 1,000 cd/m² display (BT.2100, BT.2408).
    @Test func anHLGAVIFShowsReferenceWhiteAsPQDoes() throws {
        let hlgWhite = UInt16((0.75 * 4095).rounded())
        var extras = HEIFEncoder.Extras()
        extras.nclx = (primaries: 9, transfer: 18, matrix: 9)
        let hlg = try HEIFEncoder.encode(
            samples: Self.patches([Array(repeating: hlgWhite, count: 3)]), bitDepth: 12, width: 16, height: 16, channels: 3,
            quality: 90, extras: extras)
        extras.nclx = (primaries: 9, transfer: 16, matrix: 9)
        extras.maxContentLightLevel = 1000
        let pq = try HEIFEncoder.encode(
            samples: Self.patches([Array(repeating: Self.pq(203), count: 3)]), bitDepth: 12, width: 16, height: 16, channels: 3,
            quality: 90, extras: extras)
        let a = Self.mean(try ImageDecoder.decode(hlg), patch: 0)[1], b = Self.mean(try ImageDecoder.decode(pq), patch: 0)[1]
        #expect(abs(a - b) < 4, "HLG \(a), PQ \(b)")
    }

    /// Files libheif writes with irot/imir: libheif's own turn and the decoder's agree,
    /// and both show what the orientation says.
    @Test(arguments: [ImageOrientation.right, .left, .down, .upMirrored, .leftMirrored, .rightMirrored])
    func ownTransformsAgreeWithLibheif(orientation: ImageOrientation) throws {
        let image = TestImages.natural(width: 48, height: 32)
        var extras = HEIFEncoder.Extras()
        extras.orientation = orientation
        let file = try HEIFEncoder.encode(image, quality: 95, extras: extras)
        #expect(!HEIFProperties.read(file).transforms.isEmpty)
        let info = try ImageDecoder.info(of: file)
        let libheif = try HEIFDecoder.decode(file, info: info)
        let own = try HEIFDecoder.decode(file, info: info, ownTransforms: true)
        #expect(own == libheif)
        #expect(TestImages.psnr(own, image.oriented(orientation)) > 30)
    }

    @Test func aCleanApertureCropsAroundItsOffsetCentre() {
        let centred = HEIFProperties.Transform.cleanAperture(width: 50, height: 40, horizontalOffset: 0, verticalOffset: 0)
        #expect(HEIFProperties.cropRectangle(centred, width: 100, height: 80).map { [$0.x, $0.y, $0.width, $0.height] } == [25, 20, 50, 40])
        let moved = HEIFProperties.Transform.cleanAperture(width: 50, height: 40, horizontalOffset: 10, verticalOffset: -5)
        #expect(HEIFProperties.cropRectangle(moved, width: 100, height: 80).map { [$0.x, $0.y, $0.width, $0.height] } == [35, 15, 50, 40])
        let outside = HEIFProperties.Transform.cleanAperture(width: 10, height: 10, horizontalOffset: 500, verticalOffset: 0)
        #expect(HEIFProperties.cropRectangle(outside, width: 100, height: 80) == nil)
    }

    /// Box data that lies about its sizes yields no properties, never a trap.
    @Test func damagedMetaBoxesAreReadSafely() throws {
        var extras = HEIFEncoder.Extras()
        extras.orientation = .right
        let file = try HEIFEncoder.encode(TestImages.natural(width: 16, height: 16), quality: 80, extras: extras)
        for cut in Swift.stride(from: 0, to: file.count, by: 7) { _ = HEIFProperties.read(Array(file.prefix(cut))) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<500 {
            var damaged = file
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            damaged[Int(state % UInt64(min(file.count, 400)))] = UInt8(truncatingIfNeeded: state >> 32)
            _ = HEIFProperties.read(damaged)
        }
    }
}

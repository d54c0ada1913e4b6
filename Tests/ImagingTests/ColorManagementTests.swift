import Foundation
import Testing
@testable import Imaging
import ImagingFixtures

/// Embedded profiles and colour chunks converted to sRGB at decode, checked
/// against colour science computed here from the spaces' published primaries
/// (both sides D65, so no chromatic adaptation enters the expected values).
@Suite struct ColorManagementTests {
    /// Saturated and mid colours, where wide-gamut and sRGB values differ most.
    static let card: [[UInt8]] = [
        [255, 0, 0], [0, 255, 0], [0, 0, 255], [200, 100, 50], [40, 160, 220], [128, 128, 128], [250, 240, 30], [20, 20, 20],
    ]

    static func cardImage() -> PixelBuffer {
        var bytes: [UInt8] = []
        for color in card { for _ in 0..<64 { bytes += color } }
        return try! PixelBuffer(width: 8, height: card.count * 8, channels: 3, bytes: bytes)
    }

    /// The sRGB value of `color` given in `space` (D65 spaces only), rounded and clipped.
    static func expected(_ color: [UInt8], in space: ICCProfile.Space) -> [UInt8] {
        let linear = color.map { value -> Double in
            let v = Double(value) / 255
            switch space.curve {
            case .sRGB: return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
            case .gamma(let g): return pow(v, g)
            case .pq, .hlg: Issue.record("no ICC space is HDR"); return v
            }
        }
        let toXYZ = matrix(space.xy)
        let fromXYZ = inverse(matrix(ICCProfile.Space.sRGB.xy))
        let xyz = multiply(toXYZ, linear)
        let srgb = multiply(fromXYZ, xyz)
        return srgb.map { l in
            let c = min(max(l, 0), 1)
            let v = c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055
            return UInt8((v * 255).rounded())
        }
    }

    static func matrix(_ xy: [Double]) -> [[Double]] {
        let columns: [[Double]] = stride(from: 2, to: 8, by: 2).map { (i: Int) -> [Double] in
            let x = xy[i], y = xy[i + 1]
            return [x / y, 1, (1 - x - y) / y]
        }
        let m = (0..<3).map { r in (0..<3).map { c in columns[c][r] } }
        let white = [xy[0] / xy[1], 1, (1 - xy[0] - xy[1]) / xy[1]]
        let s = multiply(inverse(m), white)
        return m.map { row in (0..<3).map { row[$0] * s[$0] } }
    }

    static func multiply(_ m: [[Double]], _ v: [Double]) -> [Double] {
        m.map { row in zip(row, v).reduce(0) { $0 + $1.0 * $1.1 } }
    }

    static func inverse(_ m: [[Double]]) -> [[Double]] {
        let a = m[0][0], b = m[0][1], c = m[0][2]
        let d = m[1][0], e = m[1][1], f = m[1][2]
        let g = m[2][0], h = m[2][1], i = m[2][2]
        let minor1: Double = e * i - f * h
        let minor2: Double = d * i - f * g
        let minor3: Double = d * h - e * g
        let det: Double = a * minor1 - b * minor2 + c * minor3
        return [
            [(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
            [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
            [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det],
        ]
    }

    static func assertCard(_ decoded: PixelBuffer, space: ICCProfile.Space, tolerance: Int) {
        for (row, color) in card.enumerated() {
            let got = Array(TestImages.pixel(decoded, 4, row * 8 + 4).prefix(3))
            let want = expected(color, in: space)
            #expect(TestImages.close(got, want, tolerance: tolerance), "\(space) \(color): got \(got), want \(want)")
        }
    }

    @Test(arguments: [ICCProfile.Space.displayP3, .adobeRGB, .sRGB])
    func pngWithAnICCProfileDecodesToSRGB(space: ICCProfile.Space) throws {
        let profile = try ICCProfile.make(space)
        let image = Self.cardImage()
        let file = try PNGRawEncoder(colorType: .rgb, bitDepth: 8, iccProfile: profile)
            .encode(rows: image.bytes, width: image.width, height: image.height, stride: image.bytesPerRow)
        Self.assertCard(try ImageDecoder.decode(file), space: space, tolerance: 1)
        let report = try ImageDecoder.colorReport(of: file)
        #expect(report.converted && report.profileName?.contains("TweetCache") == true)
        // The stored values are still there for whoever asks.
        #expect(try ImageDecoder.decode(file, options: .init(convertToSRGB: false)) == image)
    }

    /// JPEG APP2, WebP ICCP and AVIF colr carry the same profile the same way.
    @Test func jpegWebPAndAVIFProfilesAreHonoured() throws {
        let profile = try ICCProfile.make(.displayP3)
        let image = Self.cardImage()
        let jpeg = try JPEGEncoder.encode(image, options: .init(quality: 100, iccProfile: profile))
        Self.assertCard(try ImageDecoder.decode(jpeg), space: .displayP3, tolerance: 4)
        let webp = try WebPEncoder.encode(image, options: .init(lossless: true, iccProfile: profile))
        Self.assertCard(try ImageDecoder.decode(webp), space: .displayP3, tolerance: 1)
        let avif = try HEIFEncoder.encode(image, format: .avif, quality: 100, iccProfile: profile)
        #expect(try ImageDecoder.colorReport(of: avif).converted)
        let decoded = try ImageDecoder.decode(avif)
        let raw = try ImageDecoder.decode(avif, options: .init(convertToSRGB: false))
        // P3 red shows as sRGB's red, not the duller raw value the file stores for it.
        #expect(TestImages.pixel(decoded, 4, 4)[0] >= TestImages.pixel(raw, 4, 4)[0])
        #expect(decoded != raw)
    }

    /// The thumbnail of a P3 photo shows sRGB colours, shrink-on-load or not.
    @Test func thumbnailsAreConverted() throws {
        let image = Self.cardImage()
        let jpeg = try JPEGEncoder.encode(image, options: .init(quality: 100, iccProfile: try ICCProfile.make(.displayP3)))
        let thumb = try Thumbnailer.thumbnail(jpeg, longEdge: 32)
        let plain = try Thumbnailer.thumbnail(try JPEGEncoder.encode(image, options: .init(quality: 100)), longEdge: 32)
        #expect(TestImages.maxDifference(thumb.image, plain.image) > 10)
    }

    @Test func pngGammaAndChromaticitiesAreHonoured() throws {
        let image = Self.cardImage()
        let adobe = ICCProfile.Space.adobeRGB
        let file = try PNGRawEncoder(colorType: .rgb, bitDepth: 8, gamma: 256.0 / 563.0, chromaticities: adobe.xy)
            .encode(rows: image.bytes, width: image.width, height: image.height, stride: image.bytesPerRow)
        Self.assertCard(try ImageDecoder.decode(file), space: adobe, tolerance: 1)
        // gAMA 0.45455 alone is how writers say sRGB: no conversion.
        let plain = try PNGRawEncoder(colorType: .rgb, bitDepth: 8, gamma: 0.45455)
            .encode(rows: image.bytes, width: image.width, height: image.height, stride: image.bytesPerRow)
        #expect(try ImageDecoder.decode(plain) == image)
    }

    /// A 16-bit ramp through a ProPhoto profile keeps every output level between
    /// its ends: rounding to 8 bits happens once, after the conversion. Reducing
    /// first and converting 8-bit values would skip levels in the shadows (banding).
    @Test func sixteenBitPNGKeepsEveryLevel() throws {
        let width = 4096
        var rows: [UInt8] = []
        for x in 0..<width {
            let v = UInt16(x * 65535 / (width - 1))
            for _ in 0..<3 { rows += [UInt8(v >> 8), UInt8(v & 0xFF)] }
        }
        let profile = try ICCProfile.make(.proPhoto)
        let file = try PNGRawEncoder(colorType: .rgb, bitDepth: 16, iccProfile: profile)
            .encode(rows: rows, width: width, height: 1, stride: width * 6)
        let decoded = try ImageDecoder.decode(file)
        let reds = stride(from: 0, to: decoded.bytes.count, by: 3).map { Int(decoded.bytes[$0]) }
        let steps = zip(reds, reds.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 == 0 || $0 == 1 }, "largest step \(steps.max() ?? 0)")
        #expect(reds.first == 0 && reds.last == 255)
        // The same ramp at 8 bits, converted after rounding, has gaps.
        let eight = try PNGRawEncoder(colorType: .rgb, bitDepth: 8, iccProfile: profile)
            .encode(rows: stride(from: 0, to: rows.count, by: 2).map { rows[$0] }, width: width, height: 1, stride: width * 3)
        let eightBytes = try ImageDecoder.decode(eight).bytes
        let eightReds: [Int] = stride(from: 0, to: eightBytes.count, by: 3).map { Int(eightBytes[$0]) }
        #expect(zip(eightReds, eightReds.dropFirst()).contains { $1 - $0 > 1 })
    }

    /// Profiles that lie: cut short, a wrong declared size, grey for RGB pixels,
    /// garbage. Each decodes as sRGB (as browsers do) and the report says why.
    @Test func lyingProfilesAreIgnoredWithAReason() throws {
        let good = try ICCProfile.make(.displayP3)
        var wrongSize = good
        wrongSize[0] = 0x7F // declares ~2 GB
        var notRGB = good
        notRGB[16...19] = [0x47, 0x52, 0x41, 0x59] // 'GRAY' colour space on an RGB image
        let liars: [(String, [UInt8])] = [
            ("cut short", Array(good.prefix(200))),
            ("wrong size", wrongSize),
            ("grey", notRGB),
            ("garbage", [UInt8](repeating: 0x41, count: 600)),
        ]
        let image = Self.cardImage()
        // JPEG, because libpng refuses to write (and read) an iCCP chunk whose profile lies about its length.
        let untagged = try ImageDecoder.decode(try JPEGEncoder.encode(image, options: .init(quality: 95)))
        var failures: [String] = []
        for (name, profile) in liars {
            let file = try JPEGEncoder.encode(image, options: .init(quality: 95, iccProfile: profile))
            let decoded = try ImageDecoder.decode(file)
            let report = try ImageDecoder.colorReport(of: file)
            if decoded != untagged || report.converted || report.ignoredBecause == nil {
                failures.append("\(name): \(report.summary)")
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    /// A CMYK JPEG whose profile describes RGB: the profile is ignored and the
    /// naive inversion (what browsers do for untagged CMYK) is used.
    @Test func cmykWithAnRGBProfileFallsBackToTheNaiveInversion() throws {
        let image = Self.cardImage()
        let tagged = try JPEGEncoder.encode(image, options: .init(quality: 95, colorSpace: .cmyk, iccProfile: try ICCProfile.make(.displayP3)))
        let untagged = try JPEGEncoder.encode(image, options: .init(quality: 95, colorSpace: .cmyk))
        #expect(try ImageDecoder.decode(tagged) == ImageDecoder.decode(untagged))
        #expect(try ImageDecoder.colorReport(of: tagged).ignoredBecause?.contains("CMYK") == true)
    }

    @Test func derivedPNGsSayTheyAreSRGB() throws {
        let file = try PNGEncoder.encode(Self.cardImage())
        #expect(file.indices.dropLast(4).contains { Array(file[$0..<($0 + 4)]) == Array("sRGB".utf8) })
    }
}

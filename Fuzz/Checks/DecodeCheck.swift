import Imaging
import ImagingFixtures

/// Image bytes as strangers serve them, through the decode path the cache uses
/// (sniffing, header checks, libjpeg-turbo and libpng behind the shim's
/// setjmp/longjmp guards, orientation) with a pixel limit; the first byte picks the
/// options. Decoding must never trap, leak or overrun, must respect the limit, and
/// a buffer it returns must agree with the header it read.
public enum DecodeCheck: FuzzCheck {
    public static let name = "fuzz-decode"
    /// Small enough that the fuzzer's memory limit is never the finding.
    static let maxPixels = 1 << 22

    public static func run(_ input: [UInt8]) -> String? { check(input) }

    /// The checks every decode target shares: the first byte picks the options.
    static func check(_ input: [UInt8]) -> String? {
        guard let control = input.first else { return nil }
        let image = Array(input.dropFirst())
        let options = DecodeOptions(
            maxPixels: maxPixels, scaleDenominator: [1, 2, 4, 8][Int(control & 3)], applyOrientation: control & 4 != 0)
        let info = try? ImageDecoder.info(of: image)
        guard let pixels = try? ImageDecoder.decode(image, options: options) else { return nil }
        guard let info else { return "decoded an image whose header does not read" }
        guard info.width * info.height <= maxPixels else { return "decoded past the pixel limit" }
        guard pixels.channels == 3 || pixels.channels == 4,
              pixels.bytes.count == pixels.width * pixels.height * pixels.channels
        else { return "buffer of \(pixels.bytes.count) bytes for \(pixels.width)x\(pixels.height)x\(pixels.channels)" }
        let decoded = info.decodedSize(scaleDenominator: options.scaleDenominator)
        let (w, h) = options.applyOrientation && info.orientation.swapsDimensions
            ? (decoded.height, decoded.width) : (decoded.width, decoded.height)
        guard pixels.width == w, pixels.height == h else {
            return "\(pixels.width)x\(pixels.height) from a \(info.width)x\(info.height) header at 1/\(options.scaleDenominator)"
        }
        guard pixels.channels == info.channels else { return "\(pixels.channels) channels, the header said \(info.channels)" }
        return nil
    }

    public static func seeds() throws -> [String: [UInt8]] { try DecodeSeeds.make() }
}

/// Small JPEGs and PNGs in the variants found in the wild, made by the project's own
/// encoders: colour, grey, CMYK, progressive, Exif-oriented, RGBA.
enum DecodeSeeds {
    static func make() throws -> [String: [UInt8]] {
        func gradient(_ width: Int, _ height: Int, channels: Int) throws -> PixelBuffer {
            var bytes: [UInt8] = []
            for y in 0..<height {
                for x in 0..<width {
                    bytes += [UInt8(x * 255 / width), UInt8(y * 255 / height), UInt8((x ^ y) & 0xFF)]
                    if channels == 4 { bytes.append(UInt8(x * 255 / width)) }
                }
            }
            return try PixelBuffer(width: width, height: height, channels: channels, bytes: bytes)
        }
        let rgb = try gradient(24, 17, channels: 3)
        let rgba = try gradient(19, 23, channels: 4)
        var seeds: [String: [UInt8]] = [:]
        let jpegs: [(String, JPEGEncoder.Options)] = [
            ("baseline", .init(quality: 80)),
            ("progressive", .init(quality: 60, progressive: true)),
            ("grey", .init(colorSpace: .grayscale)),
            ("cmyk", .init(colorSpace: .cmyk)),
            ("ycck", .init(colorSpace: .ycck)),
            ("rotated", .init(exifOrientation: .right)),
            ("optimized", .init(quality: 30, optimizeCoding: true, exifOrientation: .leftMirrored)),
        ]
        for (n, (name, options)) in jpegs.enumerated() {
            seeds["jpeg-\(name)"] = [UInt8(n)] + (try JPEGEncoder.encode(rgb, options: options))
        }
        seeds["jpeg-icc"] = [1] + (try JPEGEncoder.encode(rgb, options: .init(iccProfile: try ICCProfile.make(.displayP3))))
        seeds["png-rgb"] = [0] + (try PNGEncoder.encode(rgb))
        seeds["png-rgba"] = [5] + (try PNGEncoder.encode(rgba, compressionLevel: 9))
        return seeds
    }
}

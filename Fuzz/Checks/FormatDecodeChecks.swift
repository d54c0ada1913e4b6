@testable import Imaging
import ImagingFixtures

/// WebP through libwebp and libwebpdemux (still, alpha, animated, ICC chunks),
/// with the checks of ``DecodeCheck``; seeded with WebP files only, so the
/// fuzzer's time goes to this decoder.
public enum WebPDecodeCheck: FuzzCheck {
    public static let name = "fuzz-webp"
    public static func run(_ input: [UInt8]) -> String? { DecodeCheck.check(input) }

    public static func seeds() throws -> [String: [UInt8]] {
        let image = FormatSeeds.picture(width: 29, height: 21, channels: 3)
        let alpha = FormatSeeds.picture(width: 23, height: 19, channels: 4)
        let profile = try ICCProfile.make(.displayP3)
        return [
            "lossy": [0] + (try WebPEncoder.encode(image, options: .init(quality: 60))),
            "lossless": [1] + (try WebPEncoder.encode(image, options: .init(lossless: true))),
            "alpha": [2] + (try WebPEncoder.encode(alpha, options: .init(quality: 80))),
            "icc": [3] + (try WebPEncoder.encode(image, options: .init(quality: 70, iccProfile: profile))),
            "animated": [4] + (try WebPEncoder.encodeAnimation([alpha, FormatSeeds.picture(width: 23, height: 19, channels: 4, shift: 7)])),
        ]
    }
}

/// GIF through giflib's record API: the first frame, transparency, interlacing,
/// frame counting.
public enum GIFDecodeCheck: FuzzCheck {
    public static let name = "fuzz-gif"
    public static func run(_ input: [UInt8]) -> String? { DecodeCheck.check(input) }

    public static func seeds() throws -> [String: [UInt8]] {
        var palette: [UInt8] = []
        for i in 0..<16 { palette += [UInt8(i * 16), UInt8(255 - i * 16), UInt8(i * 5)] }
        let indices = (0..<(17 * 13)).map { UInt8($0 % 16) }
        return [
            "plain": [0] + (try GIFEncoder.encode(indices: indices, width: 17, height: 13, palette: palette)),
            "interlaced": [1] + (try GIFEncoder.encode(indices: indices, width: 17, height: 13, palette: palette, interlaced: true)),
            "transparent": [2] + (try GIFEncoder.encode(indices: indices, width: 17, height: 13, palette: palette, transparentIndex: 3)),
            "frames": [3] + (try GIFEncoder.encode(indices: indices, width: 17, height: 13, palette: palette, frames: 4)),
        ]
    }
}

/// AVIF and HEIC through libheif (dav1d, libde265): colour boxes, alpha, odd sizes.
public enum HEIFDecodeCheck: FuzzCheck {
    public static let name = "fuzz-heif"
    public static func run(_ input: [UInt8]) -> String? { DecodeCheck.check(input) }

    public static func seeds() throws -> [String: [UInt8]] {
        let image = FormatSeeds.picture(width: 24, height: 18, channels: 3)
        var seeds: [String: [UInt8]] = [
            "avif": [0] + (try HEIFEncoder.encode(image, format: .avif, quality: 50)),
            "avif-alpha": [1] + (try HEIFEncoder.encode(FormatSeeds.picture(width: 17, height: 9, channels: 4), format: .avif)),
            "avif-icc": [2] + (try HEIFEncoder.encode(image, format: .avif, iccProfile: try ICCProfile.make(.adobeRGB))),
        ]
        if let heic = try? HEIFEncoder.encode(image, format: .heic, quality: 50) { seeds["heic"] = [3] + heic }
        return seeds
    }
}

/// ICC profiles from strangers through Little CMS: parsed, described, turned into
/// transforms for RGB and CMYK pixels and applied. Whatever the bytes, no crash,
/// and a transform that exists converts a buffer of the right size.
public enum ColorProfileCheck: FuzzCheck {
    public static let name = "fuzz-icc"

    public static func run(_ input: [UInt8]) -> String? {
        guard let control = input.first else { return nil }
        let profile = Array(input.dropFirst())
        let layouts: [ColorTransform.Input] = [.rgb8, .rgba8, .cmyk8, .cmyk8Inverted, .rgb16BigEndian]
        let layout = layouts[Int(control) % layouts.count]
        let channels = control & 0x80 != 0 ? 4 : 3
        var report = ColorReport(source: .iccProfile(profile), profileName: nil, converted: false, ignoredBecause: nil)
        _ = report.summary
        guard case .success(let transform) = ColorTransform.make(.iccProfile(profile), input: layout, outChannels: channels)
        else { return nil }
        report.converted = true
        let imageChannels = layout == .rgba8 ? 4 : 3
        let bytes: [UInt8] = (0..<(15 * imageChannels)).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        if layout == .rgb8 || layout == .rgba8, imageChannels == channels,
           var image = try? PixelBuffer(width: 5, height: 3, channels: imageChannels, bytes: bytes) {
            transform.apply(to: &image)
            guard image.bytes.count == 15 * channels else { return "the conversion changed the buffer's size" }
        }
        return nil
    }

    public static func seeds() throws -> [String: [UInt8]] {
        var seeds: [String: [UInt8]] = [:]
        for (index, space) in ICCProfile.Space.allCases.enumerated() {
            seeds["\(space)"] = [UInt8(index % 2 == 0 ? 0 : 0x81)] + (try ICCProfile.make(space))
        }
        return seeds
    }
}

enum FormatSeeds {
    /// A small picture with edges and gradients in every channel.
    static func picture(width: Int, height: Int, channels: Int, shift: Int = 0) -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                bytes += [UInt8((x * 255 / width + shift) & 0xFF), UInt8(y * 255 / height), UInt8(((x / 4) ^ (y / 4)) * 40 & 0xFF)]
                if channels == 4 { bytes.append(UInt8(x * 255 / max(1, width - 1))) }
            }
        }
        return try! PixelBuffer(width: width, height: height, channels: channels, bytes: bytes)
    }
}

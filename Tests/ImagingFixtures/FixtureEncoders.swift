// Encoders for test fixtures and test sets only (GIF, AVIF/HEIC with what phones
// write, ICC profiles): not part of the Imaging library users link.
internal import CTweetCache
public import Imaging

/// Writers for formats TweetCache reads but never writes for users: GIF, AVIF
/// and HEIF. They exist so tests, fuzz seeds and the demo can make every kind
/// of file the decoders must read from the project's own pixels, instead of
/// checking in files made by other tools.
public enum GIFEncoder {
    /// `frames` copies of one frame of palette indices (row-major, `width * height`),
    /// with a palette of 2, 4, ... 256 RGB triples. `transparentIndex` marks the
    /// index drawn transparent; `interlaced` writes the four-pass row order.
    public static func encode(
        indices: [UInt8], width: Int, height: Int, palette: [UInt8], transparentIndex: Int? = nil,
        interlaced: Bool = false, frames: Int = 1
    ) throws(ImagingError) -> [UInt8] {
        guard width > 0, height > 0, width <= 65535, height <= 65535, indices.count == width * height,
              palette.count % 3 == 0
        else { throw .invalidArgument("GIF needs width x height indices and RGB palette triples") }
        var message = CodecShim.messageBuffer()
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = indices.withUnsafeBufferPointer { pixels in
            palette.withUnsafeBufferPointer { colors in
                tc_gif_encode(
                    pixels.baseAddress, UInt32(width), UInt32(height), colors.baseAddress, Int32(palette.count / 3),
                    Int32(transparentIndex ?? -1), interlaced ? 1 : 0, Int32(frames), &output, &length, &message)
            }
        }
        let bytes = CodecShim.takeEncoded(output, count: length)
        guard status == TC_OK else { throw encodeError(status, message) }
        return bytes
    }
}

public enum HEIFEncoder {
    /// Whether this libheif can write `format` (`.avif` needs an AV1 encoder, `.heic` an HEVC one).
    public static func canEncode(_ format: ImageFormat) -> Bool {
        guard let pixels = try? PixelBuffer(width: 8, height: 8, channels: 3) else { return false }
        return (try? encode(pixels, format: format)) != nil
    }

    /// An AVIF (`.avif`) or HEIC (`.heic`) file at `quality` 0-100, with an optional ICC profile.
    public static func encode(
        _ image: PixelBuffer, format: ImageFormat = .avif, quality: Int = 80, iccProfile: [UInt8]? = nil
    ) throws(ImagingError) -> [UInt8] {
        guard format == .avif || format == .heic else { throw .invalidArgument("HEIFEncoder writes AVIF or HEIC, not \(format)") }
        var message = CodecShim.messageBuffer()
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let icc = iccProfile ?? []
        let status = image.bytes.withUnsafeBufferPointer { pixels in
            icc.withUnsafeBufferPointer { profile in
                tc_heif_encode(
                    pixels.baseAddress, UInt32(image.width), UInt32(image.height), Int32(image.channels),
                    image.bytesPerRow, format == .avif ? 1 : 0, Int32(quality),
                    profile.count > 0 ? profile.baseAddress : nil, profile.count, &output, &length, &message)
            }
        }
        let bytes = CodecShim.takeEncoded(output, count: length)
        guard status == TC_OK else { throw encodeError(status, message) }
        return bytes
    }
}

extension HEIFEncoder {
    /// What a file says beyond its pixels, as phones and cameras write it.
    public struct Extras: Sendable {
        /// EXIF-style orientation, written as `irot`/`imir` boxes.
        public var orientation: ImageOrientation = .up
        /// ITU-T H.273 primaries, transfer and matrix for an nclx box (full range); nil writes none.
        public var nclx: (primaries: Int, transfer: Int, matrix: Int)? = nil
        /// MaxCLL for a `clli` box; 0 writes none.
        public var maxContentLightLevel = 0
        public init() {}
    }

    /// `image` (8-bit) with `extras`.
    public static func encode(
        _ image: PixelBuffer, format: ImageFormat = .avif, quality: Int = 80, extras: Extras
    ) throws(ImagingError) -> [UInt8] {
        try encode(samples: image.bytes, bitDepth: 8, width: image.width, height: image.height,
                   channels: image.channels, format: format, quality: quality, extras: extras)
    }

    /// 10- or 12-bit samples (one UInt16 each, as the file's own code values) or 8-bit
    /// ones widened, with `extras`: HDR fixtures.
    public static func encode(
        samples: [UInt16], bitDepth: Int, width: Int, height: Int, channels: Int,
        format: ImageFormat = .avif, quality: Int = 80, extras: Extras
    ) throws(ImagingError) -> [UInt8] {
        let bytes = bitDepth > 8
            ? samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
            : samples.map { UInt8(clamping: $0) }
        return try encode(samples: bytes, bitDepth: bitDepth, width: width, height: height,
                          channels: channels, format: format, quality: quality, extras: extras)
    }

    static func encode(
        samples: [UInt8], bitDepth: Int, width: Int, height: Int, channels: Int,
        format: ImageFormat, quality: Int, extras: Extras
    ) throws(ImagingError) -> [UInt8] {
        guard format == .avif || format == .heic else { throw .invalidArgument("HEIFEncoder writes AVIF or HEIC, not \(format)") }
        var options = tc_heif_encode_options()
        options.bit_depth = Int32(bitDepth)
        options.orientation = Int32(extras.orientation.rawValue)
        if let nclx = extras.nclx {
            options.nclx_primaries = Int32(nclx.primaries)
            options.nclx_transfer = Int32(nclx.transfer)
            options.nclx_matrix = Int32(nclx.matrix)
        }
        options.max_content_light_level = Int32(extras.maxContentLightLevel)
        var message = CodecShim.messageBuffer()
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let sampleBytes = bitDepth > 8 ? 2 : 1
        let status = samples.withUnsafeBufferPointer { pixels in
            tc_heif_encode_ex(
                pixels.baseAddress, UInt32(width), UInt32(height), Int32(channels), width * channels * sampleBytes,
                format == .avif ? 1 : 0, Int32(quality), nil, 0, &options, &output, &length, &message)
        }
        let bytes = CodecShim.takeEncoded(output, count: length)
        guard status == TC_OK else { throw encodeError(status, message) }
        return bytes
    }
}

/// ICC profiles made by Little CMS from chromaticities and a tone curve: the
/// wide-gamut profiles phones and cameras embed, for fixtures and test sets.
public enum ICCProfile {
    /// The common RGB spaces, by their published primaries and curves.
    public enum Space: Sendable, CaseIterable {
        case sRGB, displayP3, adobeRGB, proPhoto

        /// White point, then red, green, blue primaries: CIE x, y each.
        public var xy: [Double] {
            switch self {
            case .sRGB: [0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06]
            case .displayP3: [0.3127, 0.3290, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060]
            case .adobeRGB: [0.3127, 0.3290, 0.64, 0.33, 0.21, 0.71, 0.15, 0.06]
            case .proPhoto: [0.3457, 0.3585, 0.7347, 0.2653, 0.1596, 0.8404, 0.0366, 0.0001]
            }
        }

        public var curve: ColorSource.ToneCurve {
            switch self {
            case .sRGB, .displayP3: .sRGB
            case .adobeRGB: .gamma(563.0 / 256.0)
            case .proPhoto: .gamma(1.8)
            }
        }

        var name: String {
            switch self {
            case .sRGB: "sRGB (TweetCache)"
            case .displayP3: "Display P3 (TweetCache)"
            case .adobeRGB: "Adobe RGB compatible (TweetCache)"
            case .proPhoto: "ProPhoto RGB (TweetCache)"
            }
        }
    }

    /// A v4 matrix/TRC profile for `space`.
    public static func make(_ space: Space) throws(ImagingError) -> [UInt8] {
        try make(xy: space.xy, curve: space.curve, description: space.name)
    }

    /// A profile for white point and primaries (`xy`: white, red, green, blue; CIE x, y each).
    public static func make(xy: [Double], curve: ColorSource.ToneCurve, description: String) throws(ImagingError) -> [UInt8] {
        guard xy.count == 8 else { throw .invalidArgument("need 8 chromaticity values, got \(xy.count)") }
        let (srgbCurve, gamma): (Int32, Double)
        switch curve {
        case .sRGB: (srgbCurve, gamma) = (1, 0)
        case .gamma(let g): (srgbCurve, gamma) = (0, g)
        case .pq, .hlg: throw .invalidArgument("an ICC profile cannot carry PQ or HLG here")
        }
        var message = CodecShim.messageBuffer()
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = tc_icc_make_rgb(xy, srgbCurve, gamma, description, &output, &length, &message)
        let bytes = CodecShim.takeEncoded(output, count: length)
        guard status == TC_OK else { throw .invalidArgument(CodecShim.text(message)) }
        return bytes
    }
}

/// The error a failed fixture encoder's status stands for.
private func encodeError(_ status: tc_status, _ message: [CChar]) -> ImagingError {
    status == TC_ERR_NOMEM ? .outOfMemory : .encodeFailed(CodecShim.text(message))
}

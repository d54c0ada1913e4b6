internal import CTweetCache

/// Writes ``PixelBuffer``s as baseline or progressive JPEG (libjpeg-turbo).
///
/// Defaults favour speed: 4:2:0 chroma, standard Huffman tables, one pass.
/// Transparent pixels are composited over white first, since JPEG has no alpha.
public enum JPEGEncoder {
    /// Colour model stored in the file. Everything but `.yCbCr` exists mainly
    /// so tests can produce the JPEG variants found in the wild.
    public enum ColorSpace: Sendable, Hashable {
        /// The normal choice: luma plus 4:2:0-subsampled chroma.
        case yCbCr
        /// One channel: the luma of the input.
        case grayscale
        /// Four inverted ink channels with an Adobe marker, as Photoshop writes them.
        case cmyk
        /// Like `.cmyk`, stored as YCCK.
        case ycck
    }

    public struct Options: Sendable, Hashable {
        /// 1-100 on libjpeg's scale; 80-90 is visually lossless for photos.
        public var quality: Int
        /// Progressive scans: a few percent smaller for large images, slower to write.
        public var progressive: Bool
        /// Optimal Huffman tables: a second pass for a few percent smaller files.
        public var optimizeCoding: Bool
        public var colorSpace: ColorSpace
        /// When set, an Exif APP1 segment records this orientation (the pixels are not changed).
        public var exifOrientation: ImageOrientation?
        /// When set, APP2 segments carry this ICC profile (the pixels are not changed): for
        /// fixtures of wide-gamut photos. TweetCache's own JPEGs are sRGB and untagged,
        /// which browsers read as sRGB (CSS Color 4), saving the profile's bytes per tile.
        public var iccProfile: [UInt8]?

        public init(
            quality: Int = 85, progressive: Bool = false, optimizeCoding: Bool = false,
            colorSpace: ColorSpace = .yCbCr, exifOrientation: ImageOrientation? = nil, iccProfile: [UInt8]? = nil
        ) {
            self.quality = quality
            self.progressive = progressive
            self.optimizeCoding = optimizeCoding
            self.colorSpace = colorSpace
            self.exifOrientation = exifOrientation
            self.iccProfile = iccProfile
        }
    }

    /// The JPEG file for `image` at the given quality (1-100).
    public static func encode(_ image: PixelBuffer, quality: Int = 85, progressive: Bool = false) throws(ImagingError) -> [UInt8] {
        try encode(image, options: Options(quality: quality, progressive: progressive))
    }

    /// The JPEG file for `image` with full control over the output.
    public static func encode(_ image: PixelBuffer, options: Options) throws(ImagingError) -> [UInt8] {
        guard (1...100).contains(options.quality) else {
            throw .invalidArgument("JPEG quality must be 1-100, got \(options.quality)")
        }
        guard image.width <= Int(TC_JPEG_MAX_DIMENSION), image.height <= Int(TC_JPEG_MAX_DIMENSION) else {
            throw .encodeFailed("JPEG cannot store \(image.width)x\(image.height) pixels (at most \(TC_JPEG_MAX_DIMENSION) per side)")
        }
        let opaque = image.flattened()
        var message = CodecShim.messageBuffer()
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let icc = options.iccProfile ?? []
        let status = opaque.bytes.withUnsafeBufferPointer { pixels in
            icc.withUnsafeBufferPointer { profile in
                var settings = tc_jpeg_encode_options(
                    quality: Int32(options.quality), progressive: options.progressive ? 1 : 0,
                    optimize_coding: options.optimizeCoding ? 1 : 0, color: options.colorSpace.shimValue,
                    exif_orientation: Int32(options.exifOrientation?.rawValue ?? 0),
                    icc: profile.count > 0 ? profile.baseAddress : nil, icc_len: profile.count, cmyk_input: 0)
                return tc_jpeg_encode(
                    pixels.baseAddress, UInt32(opaque.width), UInt32(opaque.height), 3, opaque.bytesPerRow,
                    &settings, &output, &length, &message)
            }
        }
        let bytes = CodecShim.takeEncoded(output, count: length)
        guard status == TC_OK else { throw CodecShim.encodeError(status, message) }
        return bytes
    }
}

extension JPEGEncoder.ColorSpace {
    fileprivate var shimValue: tc_jpeg_encode_color {
        switch self {
        case .yCbCr: TC_JPEG_ENCODE_YCBCR
        case .grayscale: TC_JPEG_ENCODE_GRAY
        case .cmyk: TC_JPEG_ENCODE_CMYK
        case .ycck: TC_JPEG_ENCODE_YCCK
        }
    }
}

extension JPEGEncoder {
    /// A CMYK (`ycck` false) or YCCK JPEG of ink amounts (`width * height * 4` bytes, C M Y K,
    /// 0 = no ink), stored inverted with an Adobe marker as Photoshop writes them, with an
    /// optional CMYK ICC profile: the print-workflow files decoders meet, for test sets.
    public static func encodeCMYK(
        ink: [UInt8], width: Int, height: Int, ycck: Bool = false, quality: Int = 90, iccProfile: [UInt8]? = nil
    ) throws(ImagingError) -> [UInt8] {
        guard width > 0, height > 0, ink.count == width * height * 4 else {
            throw .invalidArgument("CMYK needs width x height x 4 bytes")
        }
        var message = CodecShim.messageBuffer()
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let icc = iccProfile ?? []
        let status = ink.withUnsafeBufferPointer { pixels in
            icc.withUnsafeBufferPointer { profile in
                var settings = tc_jpeg_encode_options(
                    quality: Int32(quality), progressive: 0, optimize_coding: 0,
                    color: ycck ? TC_JPEG_ENCODE_YCCK : TC_JPEG_ENCODE_CMYK, exif_orientation: 0,
                    icc: profile.count > 0 ? profile.baseAddress : nil, icc_len: profile.count, cmyk_input: 1)
                return tc_jpeg_encode(
                    pixels.baseAddress, UInt32(width), UInt32(height), 4, width * 4, &settings, &output, &length, &message)
            }
        }
        let bytes = CodecShim.takeEncoded(output, count: length)
        guard status == TC_OK else { throw CodecShim.encodeError(status, message) }
        return bytes
    }
}

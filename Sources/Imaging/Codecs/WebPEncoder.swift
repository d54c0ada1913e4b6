internal import CTweetCache

/// Writes ``PixelBuffer``s as WebP (libwebp): lossy for photographs, lossless
/// for flat graphics and exact fixtures. Alpha is kept in both, which is where
/// WebP pays for IIIF renditions of transparent images: a lossy WebP with alpha
/// is a fraction of the PNG that would otherwise carry the transparency.
public enum WebPEncoder {
    public struct Options: Sendable, Hashable {
        /// 0-100; libwebp's default of 75 matches JPEG quality 80-85 at about 30% fewer bytes.
        /// For lossless files, the effort spent compressing.
        public var quality: Double
        public var lossless: Bool
        /// An ICC profile to embed (fixtures of wide-gamut WebP; TweetCache's own output is sRGB, untagged).
        public var iccProfile: [UInt8]?
        /// When set, an EXIF chunk records this orientation (the pixels are not changed): fixtures.
        public var exifOrientation: ImageOrientation?

        public init(
            quality: Double = 75, lossless: Bool = false, iccProfile: [UInt8]? = nil, exifOrientation: ImageOrientation? = nil
        ) {
            self.quality = quality
            self.lossless = lossless
            self.iccProfile = iccProfile
            self.exifOrientation = exifOrientation
        }
    }

    /// Largest width or height a WebP can have.
    public static let maxDimension = Int(TC_WEBP_MAX_DIMENSION)

    public static func encode(_ image: PixelBuffer, options: Options = .init()) throws(ImagingError) -> [UInt8] {
        guard (0...100).contains(options.quality) else {
            throw .invalidArgument("WebP quality must be 0-100, got \(options.quality)")
        }
        guard image.width <= maxDimension, image.height <= maxDimension else {
            throw .encodeFailed("WebP cannot store \(image.width)x\(image.height) pixels (at most \(maxDimension) per side)")
        }
        var message = CodecShim.messageBuffer()
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let icc = options.iccProfile ?? []
        let status = image.bytes.withUnsafeBufferPointer { pixels in
            icc.withUnsafeBufferPointer { profile in
                var settings = tc_webp_encode_options(
                    quality: Float(options.quality), lossless: options.lossless ? 1 : 0,
                    icc: profile.count > 0 ? profile.baseAddress : nil, icc_len: profile.count,
                    exif_orientation: Int32(options.exifOrientation?.rawValue ?? 0))
                return tc_webp_encode(
                    pixels.baseAddress, UInt32(image.width), UInt32(image.height), Int32(image.channels),
                    image.bytesPerRow, &settings, &output, &length, &message)
            }
        }
        let bytes = CodecShim.takeEncoded(output, count: length)
        guard status == TC_OK else { throw CodecShim.encodeError(status, message) }
        return bytes
    }

    /// An animated WebP of equally sized frames (converted to RGBA), for fixtures.
    public static func encodeAnimation(
        _ frames: [PixelBuffer], frameMilliseconds: Int = 100, lossless: Bool = true
    ) throws(ImagingError) -> [UInt8] {
        guard let first = frames.first,
              frames.allSatisfy({ $0.width == first.width && $0.height == first.height })
        else { throw .invalidArgument("an animation needs frames of one size") }
        var rgba: [UInt8] = []
        rgba.reserveCapacity(first.width * first.height * 4 * frames.count)
        for frame in frames { rgba += frame.withAlpha().bytes }
        var message = CodecShim.messageBuffer()
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = rgba.withUnsafeBufferPointer { pixels in
            tc_webp_encode_animation(
                pixels.baseAddress, UInt32(first.width), UInt32(first.height), Int32(frames.count),
                Int32(frameMilliseconds), lossless ? 1 : 0, &output, &length, &message)
        }
        let bytes = CodecShim.takeEncoded(output, count: length)
        guard status == TC_OK else { throw CodecShim.encodeError(status, message) }
        return bytes
    }
}

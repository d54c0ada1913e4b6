internal import CTweetCache

/// WebP reading through the C shim (libwebp, libwebpdemux): lossy, lossless,
/// alpha, and the first frame of an animation.
enum WebPDecoder {
    static func info(of data: [UInt8]) throws(ImagingError) -> ImageInfo {
        var header = tc_webp_info()
        var message = CodecShim.messageBuffer()
        let status = data.withUnsafeBufferPointer { bytes in
            tc_webp_read_header(bytes.baseAddress, bytes.count, &header, &message)
        }
        guard status == TC_OK else { throw CodecShim.decodeError(status, message, format: .webp) }
        let hasAlpha = header.has_alpha != 0
        return ImageInfo(
            format: .webp, width: Int(header.width), height: Int(header.height),
            channels: hasAlpha ? 4 : 3, hasAlpha: hasAlpha,
            orientation: ImageOrientation(rawValue: Int(header.orientation)) ?? .up,
            frames: Int(header.frames), scalesOnLoad: header.animated == 0
        )
    }

    /// The ICCP chunk's profile, or `.sRGB`.
    static func colorSource(of data: [UInt8]) -> ColorSource { CodecShim.profile(in: data, tc_webp_read_icc) }

    /// Decodes at 1/`scaleDenominator` size (still images: libwebp's rescaler
    /// averages the area each output pixel covers, so unlike JPEG's 1/8 IDCT it
    /// needs no headroom for quality), in sRGB when `convert`.
    static func decode(
        _ data: [UInt8], info: ImageInfo, scaleDenominator: Int, convert: Bool = true
    ) throws(ImagingError) -> PixelBuffer {
        let size = info.decodedSize(scaleDenominator: scaleDenominator)
        return try decode(data, info: info, width: size.width, height: size.height, convert: convert)
    }

    /// Decodes a still image at exactly `width` x `height` (no larger than stored), or an
    /// animation's first frame at its canvas size; the caller has checked the pixel limit.
    static func decode(
        _ data: [UInt8], info: ImageInfo, width: Int, height: Int, convert: Bool = true
    ) throws(ImagingError) -> PixelBuffer {
        let size = info.scalesOnLoad ? (width: width, height: height) : (width: info.width, height: info.height)
        let count = try PixelBuffer.byteCount(width: size.width, height: size.height, channels: info.channels)
        var message = CodecShim.messageBuffer()
        let (bytes, status) = CodecShim.fill(count: count) { out in
            data.withUnsafeBufferPointer { input in
                tc_webp_decode(
                    input.baseAddress, input.count, UInt32(size.width), UInt32(size.height), Int32(info.channels),
                    out.baseAddress, out.count, size.width * info.channels, &message)
            }
        }
        guard status == TC_OK else { throw CodecShim.decodeError(status, message, format: .webp) }
        var image = PixelBuffer(unchecked: size.width, height: size.height, channels: info.channels, bytes: bytes)
        if convert { ColorConversion.apply(colorSource(of: data), to: &image) }
        return image
    }
}

/// Converting a decoded 8-bit buffer to sRGB in place, for the codecs whose
/// pixels need no special layout on the way (WebP, HEIF): a source that cannot
/// be used leaves the pixels as they are, read as sRGB (as browsers do).
enum ColorConversion {
    static func apply(_ source: ColorSource, to image: inout PixelBuffer) {
        guard source != .sRGB,
              case .success(let transform) = ColorTransform.make(
                  source, input: .init(channels: image.channels), outChannels: image.channels)
        else { return }
        transform.apply(to: &image)
    }
}

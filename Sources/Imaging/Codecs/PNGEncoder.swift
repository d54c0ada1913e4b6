internal import CTweetCache

/// Writes ``PixelBuffer``s as 8-bit RGB or RGBA PNG (libpng), losslessly.
public enum PNGEncoder {
    /// The PNG file for `image`. `compressionLevel` is zlib's 0-9: 1-3 are
    /// several times faster and only slightly larger, the right trade for
    /// tiles; 6 is the usual balance; 9 rarely pays for its time.
    public static func encode(_ image: PixelBuffer, compressionLevel: Int = 6) throws(ImagingError) -> [UInt8] {
        guard (0...9).contains(compressionLevel) else {
            throw .invalidArgument("PNG compression level must be 0-9, got \(compressionLevel)")
        }
        guard image.width <= Int(Int32.max), image.height <= Int(Int32.max) else {
            throw .encodeFailed("PNG cannot store \(image.width)x\(image.height) pixels")
        }
        var message = CodecShim.messageBuffer()
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = image.bytes.withUnsafeBufferPointer { pixels in
            tc_png_encode(
                pixels.baseAddress, UInt32(image.width), UInt32(image.height), Int32(image.channels),
                image.bytesPerRow, Int32(compressionLevel), &output, &length, &message)
        }
        let bytes = CodecShim.takeEncoded(output, count: length)
        guard status == TC_OK else { throw CodecShim.encodeError(status, message) }
        return bytes
    }
}

extension PNGEncoder {
    /// An 8-bit sRGB PNG with an eXIf chunk recording `orientation` (the pixels are
    /// not changed): fixtures for decoders that must apply it, as browsers do.
    public static func encode(_ image: PixelBuffer, exifOrientation orientation: ImageOrientation) throws(ImagingError) -> [UInt8] {
        try encodeRaw(image) { format in
            format.srgb = 1
            format.exif_orientation = Int32(orientation.rawValue)
        }
    }

    /// An 8-bit PNG whose colours are described by gAMA (the stored encoding exponent,
    /// 0.45455 for a 2.2 display gamma) and cHRM (white, red, green, blue; CIE x, y
    /// each) instead of an sRGB chunk: the older way files say what their values mean,
    /// for fixtures and test sets.
    public static func encode(_ image: PixelBuffer, gamma: Double, chromaticities xy: [Double]) throws(ImagingError) -> [UInt8] {
        guard xy.count == 8, gamma > 0 else { throw .invalidArgument("need a positive gamma and 8 chromaticity values") }
        return try encodeRaw(image) { format in
            format.gamma = gamma
            format.has_chrm = 1
            format.chrm = (xy[0], xy[1], xy[2], xy[3], xy[4], xy[5], xy[6], xy[7])
        }
    }

    /// An 8-bit RGB or RGBA PNG through the raw writer, with the chunks `describe` sets.
    private static func encodeRaw(_ image: PixelBuffer, _ describe: (inout tc_png_raw_format) -> Void) throws(ImagingError) -> [UInt8] {
        var message = CodecShim.messageBuffer()
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var format = tc_png_raw_format()
        format.color_type = image.channels == 4 ? 6 : 2
        format.bit_depth = 8
        describe(&format)
        let status = image.bytes.withUnsafeBufferPointer { pixels in
            tc_png_encode_raw(
                pixels.baseAddress, UInt32(image.width), UInt32(image.height), image.bytesPerRow, &format, 6,
                &output, &length, &message)
        }
        let bytes = CodecShim.takeEncoded(output, count: length)
        guard status == TC_OK else { throw CodecShim.encodeError(status, message) }
        return bytes
    }
}

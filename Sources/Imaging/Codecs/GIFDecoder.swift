internal import CTweetCache

/// GIF reading through the C shim (giflib's record API): the first frame on its
/// canvas. Later frames are counted, never decoded, so a 10,000-frame file costs
/// no more than its first frame.
enum GIFDecoder {
    static func info(of data: [UInt8]) throws(ImagingError) -> ImageInfo {
        if let rescue = GIFRescue.parse(data), rescue.isNeeded {
            return ImageInfo(
                format: .gif, width: rescue.canvasWidth, height: rescue.canvasHeight,
                channels: rescue.hasAlpha ? 4 : 3, hasAlpha: rescue.hasAlpha,
                progressive: rescue.interlaced, frames: rescue.frames)
        }
        var header = tc_gif_info()
        var message = CodecShim.messageBuffer()
        let status = data.withUnsafeBufferPointer { bytes in
            tc_gif_read_header(bytes.baseAddress, bytes.count, &header, &message)
        }
        guard status == TC_OK else { throw CodecShim.decodeError(status, message, format: .gif) }
        let hasAlpha = header.has_alpha != 0
        return ImageInfo(
            format: .gif, width: Int(header.width), height: Int(header.height),
            channels: hasAlpha ? 4 : 3, hasAlpha: hasAlpha,
            progressive: header.interlaced != 0, frames: Int(header.frames)
        )
    }

    /// GIF colours are sRGB by convention; nothing to convert. A first frame giflib
    /// refuses but browsers show (``GIFRescue``) is read as they read it, and said
    /// in ``DecodedImage/damage``.
    static func decode(_ data: [UInt8], info: ImageInfo) throws(ImagingError) -> DecodedImage {
        if let rescue = GIFRescue.parse(data), rescue.isNeeded { return try rescue.decode(channels: info.channels) }
        let count = try PixelBuffer.byteCount(width: info.width, height: info.height, channels: info.channels)
        var message = CodecShim.messageBuffer()
        let (bytes, status) = CodecShim.fill(count: count) { out in
            data.withUnsafeBufferPointer { input in
                tc_gif_decode(
                    input.baseAddress, input.count, Int32(info.channels),
                    out.baseAddress, out.count, info.width * info.channels, &message)
            }
        }
        guard status == TC_OK else { throw CodecShim.decodeError(status, message, format: .gif) }
        return DecodedImage(image: PixelBuffer(unchecked: info.width, height: info.height, channels: info.channels, bytes: bytes))
    }
}

internal import CTweetCache

/// PNG reading through the C shim (libpng, classic API).
enum PNGDecoder {
    static func info(of data: [UInt8]) throws(ImagingError) -> ImageInfo {
        var header = tc_png_info()
        var message = CodecShim.messageBuffer()
        let status = data.withUnsafeBufferPointer { bytes in
            tc_png_read_header(bytes.baseAddress, bytes.count, &header, &message)
        }
        guard status == TC_OK else { throw CodecShim.decodeError(status, message, format: .png) }
        let hasAlpha = header.has_alpha != 0
        return ImageInfo(
            format: .png, width: Int(header.width), height: Int(header.height),
            channels: hasAlpha ? 4 : 3, hasAlpha: hasAlpha,
            orientation: .up, progressive: header.interlaced != 0
        )
    }

    /// Decodes to 8-bit RGB or RGBA (`info.channels`); the caller has already
    /// checked `info`'s size against its pixel limit.
    static func decode(_ data: [UInt8], info: ImageInfo) throws(ImagingError) -> PixelBuffer {
        let count = try PixelBuffer.byteCount(width: info.width, height: info.height, channels: info.channels)
        var message = CodecShim.messageBuffer()
        var warnings = 0
        let (bytes, status) = CodecShim.fill(count: count) { out in
            data.withUnsafeBufferPointer { input in
                tc_png_decode(
                    input.baseAddress, input.count, Int32(info.channels),
                    out.baseAddress, out.count, info.width * info.channels, &warnings, &message)
            }
        }
        guard status == TC_OK else { throw CodecShim.decodeError(status, message, format: .png) }
        return PixelBuffer(unchecked: info.width, height: info.height, channels: info.channels, bytes: bytes)
    }
}

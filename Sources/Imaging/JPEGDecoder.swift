internal import CTweetCache

/// JPEG reading through the C shim (libjpeg-turbo).
enum JPEGDecoder {
    static func info(of data: [UInt8]) throws(ImagingError) -> ImageInfo {
        var header = tc_jpeg_info()
        var message = CodecShim.messageBuffer()
        let status = data.withUnsafeBufferPointer { bytes in
            tc_jpeg_read_header(bytes.baseAddress, bytes.count, &header, &message)
        }
        guard status == TC_OK else { throw CodecShim.decodeError(status, message, format: .jpeg) }
        return ImageInfo(
            format: .jpeg, width: Int(header.width), height: Int(header.height),
            channels: 3, hasAlpha: false,
            orientation: ImageOrientation(rawValue: Int(header.orientation)) ?? .up,
            progressive: header.progressive != 0
        )
    }

    /// Decodes to RGB at 1/`scaleDenominator` size. Warnings that mean lost or
    /// damaged pixels (libjpeg fills grey and carries on) are errors here:
    /// a cache must not keep a half-grey image as if it were the real one.
    static func decode(_ data: [UInt8], scaleDenominator: Int) throws(ImagingError) -> PixelBuffer {
        var message = CodecShim.messageBuffer()
        var width: UInt32 = 0
        var height: UInt32 = 0
        let sizeStatus = data.withUnsafeBufferPointer { bytes in
            tc_jpeg_scaled_size(bytes.baseAddress, bytes.count, Int32(scaleDenominator), &width, &height, &message)
        }
        guard sizeStatus == TC_OK else { throw CodecShim.decodeError(sizeStatus, message, format: .jpeg) }
        let count = try PixelBuffer.byteCount(width: Int(width), height: Int(height), channels: 3)
        var report = tc_jpeg_decode_report()
        let (bytes, status) = CodecShim.fill(count: count) { out in
            data.withUnsafeBufferPointer { input in
                tc_jpeg_decode(
                    input.baseAddress, input.count, Int32(scaleDenominator), 3,
                    out.baseAddress, out.count, Int(width) * 3, &report, &message)
            }
        }
        guard status == TC_OK else { throw CodecShim.decodeError(status, message, format: .jpeg) }
        if report.truncated != 0 { throw .truncated(.jpeg) }
        if report.damaging_warnings > 0 { throw .corrupt(.jpeg, Self.reason(CodecShim.text(message))) }
        return PixelBuffer(unchecked: Int(width), height: Int(height), channels: 3, bytes: bytes)
    }

    /// libjpeg's warning text without its own "Corrupt JPEG data: " prefix,
    /// which ``ImagingError/corrupt(_:_:)`` already says.
    static func reason(_ warning: String) -> String {
        let prefix = "Corrupt JPEG data: "
        return warning.hasPrefix(prefix) ? String(warning.dropFirst(prefix.count)) : warning
    }
}

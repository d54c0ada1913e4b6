internal import CTweetCache

/// AVIF and HEIF reading through the C shim (libheif): the primary image, its
/// rotation and mirroring (irot/imir boxes) applied by libheif, 10- and 12-bit
/// images reduced to 8.
enum HEIFDecoder {
    static func header(of data: [UInt8], format: ImageFormat) throws(ImagingError) -> tc_heif_info {
        var header = tc_heif_info()
        var message = CodecShim.messageBuffer()
        let status = data.withUnsafeBufferPointer { bytes in
            tc_heif_read_header(bytes.baseAddress, bytes.count, &header, &message)
        }
        guard status == TC_OK else { throw CodecShim.decodeError(status, message, format: format) }
        return header
    }

    static func info(of data: [UInt8], format: ImageFormat) throws(ImagingError) -> ImageInfo {
        let header = try header(of: data, format: format)
        let hasAlpha = header.has_alpha != 0
        // The container, not the sniffed brand, decides which decoder runs.
        let actual: ImageFormat = header.av1 != 0 ? .avif : .heic
        guard tc_heif_can_decode(header.av1) != 0 else { throw .unsupportedFormat(actual) }
        return ImageInfo(
            format: actual, width: Int(header.width), height: Int(header.height),
            channels: hasAlpha ? 4 : 3, hasAlpha: hasAlpha)
    }

    /// An ICC profile when there is one; else the nclx box's primaries with the
    /// sRGB curve (BT.709-family transfers are drawn that way by browsers too).
    /// BT.709 or unspecified primaries are sRGB. PQ and HLG (HDR) are not tone-mapped.
    static func colorSource(of data: [UInt8], format: ImageFormat) -> ColorSource {
        guard let header = try? header(of: data, format: format) else { return .sRGB }
        if header.has_icc != 0, case let profile = CodecShim.profile(in: data, tc_heif_read_icc), profile != .sRGB {
            return profile
        }
        guard header.has_nclx != 0, header.primaries != 1, header.primaries != 2 else { return .sRGB }
        let xy = withUnsafeBytes(of: header.xy) { Array($0.bindMemory(to: Double.self)) }
        return .chromaticities(xy: xy, curve: .sRGB)
    }

    static func decode(_ data: [UInt8], info: ImageInfo, convert: Bool = true) throws(ImagingError) -> PixelBuffer {
        let count = try PixelBuffer.byteCount(width: info.width, height: info.height, channels: info.channels)
        var message = CodecShim.messageBuffer()
        let (bytes, status) = CodecShim.fill(count: count) { out in
            data.withUnsafeBufferPointer { input in
                tc_heif_decode(
                    input.baseAddress, input.count, UInt32(info.width), UInt32(info.height), Int32(info.channels),
                    out.baseAddress, out.count, info.width * info.channels, &message)
            }
        }
        guard status == TC_OK else { throw CodecShim.decodeError(status, message, format: info.format) }
        var image = PixelBuffer(unchecked: info.width, height: info.height, channels: info.channels, bytes: bytes)
        if convert { ColorConversion.apply(colorSource(of: data, format: info.format), to: &image) }
        return image
    }
}

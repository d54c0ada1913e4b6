internal import CTweetCache

/// Glue for calling the C codec shim: message buffers, status mapping and
/// ownership of encoder output. Keeps every C type out of the public API.
package enum CodecShim {
    /// A zeroed buffer for the shim's `char msg[TC_MSG_CAP]` parameter.
    package static func messageBuffer() -> [CChar] {
        [CChar](repeating: 0, count: Int(TC_MSG_CAP))
    }

    /// The NUL-terminated text in a message buffer.
    package static func text(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The error a failed decode-side status stands for.
    static func decodeError(_ status: tc_status, _ message: [CChar], format: ImageFormat) -> ImagingError {
        let detail = text(message)
        switch status {
        case TC_ERR_TRUNCATED: return .truncated(format)
        case TC_ERR_UNSUPPORTED: return .unsupportedVariant(format, detail)
        case TC_ERR_NOMEM: return .outOfMemory
        case TC_ERR_ARGUMENT: return .invalidArgument(detail)
        case TC_ERR_LIMIT: return .invalidArgument("decode buffer too small: \(detail)")
        default: return .corrupt(format, detail.isEmpty ? "unreadable data" : detail)
        }
    }

    /// The error a failed encoder status stands for.
    static func encodeError(_ status: tc_status, _ message: [CChar]) -> ImagingError {
        status == TC_ERR_NOMEM ? .outOfMemory : .encodeFailed(text(message))
    }

    /// Copies a malloc'd encoder result into Swift memory and frees it.
    package static func takeEncoded(_ pointer: UnsafeMutablePointer<UInt8>?, count: Int) -> [UInt8] {
        defer { tc_codec_free(pointer) }
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }

    /// The embedded ICC profile a shim reader (`tc_jpeg_read_icc`, `tc_webp_read_icc`,
    /// `tc_heif_read_icc`) finds in `data`, or `.sRGB` when there is none or it cannot be read.
    static func profile(
        in data: [UInt8],
        _ read: (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                 UnsafeMutablePointer<Int>?, UnsafeMutablePointer<CChar>?) -> tc_status
    ) -> ColorSource {
        var message = messageBuffer()
        var icc: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = data.withUnsafeBufferPointer { bytes in read(bytes.baseAddress, bytes.count, &icc, &length, &message) }
        let bytes = takeEncoded(icc, count: length)
        return status == TC_OK && !bytes.isEmpty ? .iccProfile(bytes) : .sRGB
    }

    /// A buffer of `count` bytes filled by `fill`, which returns a shim status;
    /// nothing is kept when it fails.
    static func fill(count: Int, _ fill: (UnsafeMutableBufferPointer<UInt8>) -> tc_status) -> (bytes: [UInt8], status: tc_status) {
        var status = TC_ERR_ARGUMENT
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            status = fill(buffer)
            initialized = status == TC_OK ? count : 0
        }
        return (bytes, status)
    }
}

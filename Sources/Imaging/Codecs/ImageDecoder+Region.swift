internal import CTweetCache

extension ImageDecoder {
    /// The pixels of one rectangle of the image ``decode(_:options:)`` gives (upright,
    /// in sRGB), decoded alone, or nil when the file cannot be decoded in part with
    /// the very same result: then the caller decodes it whole.
    ///
    /// Why: a viewer's first tile of a photo without a pyramid yet is a 256-pixel
    /// square, and decoding the whole 12-megapixel photo for it is most of its
    /// latency. A JPEG that needs no turning and holds no inks is read from the
    /// square's first row and only in the columns under it (libjpeg-turbo's partial
    /// decompression). Any other file, and a JPEG whose data is damaged where it was
    /// read, gives nil, so damage is shown as the whole decode shows it.
    public static func decodeRegion(
        _ data: [UInt8], _ rect: TileRect, options: DecodeOptions = .init()
    ) throws(ImagingError) -> PixelBuffer? {
        try options.validate()
        let info = try info(of: data)
        try options.checkPixelLimit(width: info.width, height: info.height)
        guard info.format == .jpeg, options.scaleDenominator == 1,
              info.orientation == .up || !options.applyOrientation,
              JPEGDecoder.convertsLate(data, info: info)
        else { return nil }
        guard rect.x >= 0, rect.y >= 0, rect.width > 0, rect.height > 0,
              rect.width <= info.width - rect.x, rect.height <= info.height - rect.y else {
            throw .invalidArgument("rectangle \(rect) is outside the \(info.width)x\(info.height) image")
        }
        return try JPEGDecoder.decodeRegion(data, rect, convert: options.convertToSRGB)
    }
}

extension JPEGDecoder {
    /// `rect` of a YCbCr, RGB or grey JPEG in sRGB, as ``decode(_:scaleDenominator:convert:)``
    /// gives it; nil when the data is damaged or ends before the rectangle does.
    static func decodeRegion(_ data: [UInt8], _ rect: TileRect, convert: Bool) throws(ImagingError) -> PixelBuffer? {
        let count = try PixelBuffer.byteCount(width: rect.width, height: rect.height, channels: 3)
        var report = tc_jpeg_decode_report()
        var message = CodecShim.messageBuffer()
        let (bytes, status) = CodecShim.fill(count: count) { out in
            data.withUnsafeBufferPointer { input in
                tc_jpeg_decode_region(
                    input.baseAddress, input.count, UInt32(rect.x), UInt32(rect.y), UInt32(rect.width),
                    UInt32(rect.height), out.baseAddress, out.count, &report, &message)
            }
        }
        if status == TC_ERR_UNSUPPORTED { return nil }
        guard status == TC_OK else { throw CodecShim.decodeError(status, message, format: .jpeg) }
        guard report.damaging_warnings == 0, report.truncated == 0, report.height == UInt32(rect.height) else { return nil }
        var image = PixelBuffer(unchecked: rect.width, height: rect.height, channels: 3, bytes: bytes)
        // The same conversion, per pixel, as the whole decode's.
        if convert, case let source = colorSource(of: data), source != .sRGB,
           let transform = try? ColorTransform.make(source, input: .rgb8, outChannels: 3).get() {
            transform.apply(to: &image)
        }
        return image
    }
}

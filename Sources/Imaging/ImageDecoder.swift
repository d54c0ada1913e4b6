/// Reads JPEG and PNG files into ``PixelBuffer``s, choosing the codec from the
/// bytes themselves.
///
/// Every input is treated as hostile: the format is sniffed, the header is read
/// and checked against ``DecodeOptions/maxPixels`` before any pixel memory is
/// allocated, and damaged or truncated data becomes an ``ImagingError`` rather
/// than a partly grey image. Safe to call from any thread concurrently.
public enum ImageDecoder {
    /// The image's format, size and orientation, from its header alone.
    public static func info(of data: [UInt8]) throws(ImagingError) -> ImageInfo {
        switch ImageFormat.sniff(data) {
        case .jpeg: try JPEGDecoder.info(of: data)
        case .png: try PNGDecoder.info(of: data)
        case let format?: throw .unsupportedFormat(format)
        case nil: throw .unrecognizedFormat
        }
    }

    /// The decoded pixels: RGB for JPEG, RGB or RGBA for PNG (RGBA when the file
    /// has any transparency), upright unless `options.applyOrientation` is false.
    public static func decode(_ data: [UInt8], options: DecodeOptions = .init()) throws(ImagingError) -> PixelBuffer {
        try options.validate()
        let info = try info(of: data)
        try options.checkPixelLimit(width: info.width, height: info.height)
        let image: PixelBuffer = switch info.format {
        case .jpeg: try JPEGDecoder.decode(data, scaleDenominator: options.scaleDenominator)
        case .png: try PNGDecoder.decode(data, info: info)
        case .gif, .webp: throw .unsupportedFormat(info.format)
        }
        return options.applyOrientation ? image.oriented(info.orientation) : image
    }
}

internal import CTweetCache

/// One format's reader, as ``ImageDecoder`` asks every format the same things.
///
/// A codec is chosen from ``ImageCodecs/all`` by the format sniffed from the bytes,
/// so supporting another format is one conforming type added to that list, not a
/// case added to every switch. Every method is given bytes that sniffed as one of
/// the codec's ``formats`` and treats them as hostile. The types are `SendableMetatype`:
/// the registry's list of them is read from every decoding thread.
protocol ImageCodec: SendableMetatype {
    /// The sniffed formats this codec reads.
    static var formats: Set<ImageFormat> { get }
    /// Size, channels and orientation from the header alone.
    static func info(of data: [UInt8], format: ImageFormat) throws(ImagingError) -> ImageInfo
    /// The pixels (checked against the pixel limit by the caller), and what was wrong
    /// with a file that decoded only in part.
    static func decode(_ data: [UInt8], info: ImageInfo, options: DecodeOptions) throws(ImagingError) -> DecodedImage
    /// What the file says its colour values mean.
    static func colorSource(of data: [UInt8], info: ImageInfo) -> ColorSource
    /// The layout the colour transform reads for this file (RGB(A), or a CMYK JPEG's inks).
    static func transformInput(of data: [UInt8], info: ImageInfo) -> ColorTransform.Input
    /// Whether the colours may be converted after decoding (and shrinking); false when
    /// the codec converts inside its decoder (CMYK inks, 16-bit samples, HDR).
    static func convertsLate(_ data: [UInt8], info: ImageInfo) -> Bool
    /// Whether the file is already what a thumbnail of it would be (upright sRGB, a
    /// format every browser shows), so a server may send it as it is.
    static func isUprightSRGB(_ data: [UInt8], info: ImageInfo) -> Bool
    /// How decoding makes an HDR file SDR, for `info`; nil for SDR files.
    static func toneMapping(of data: [UInt8], source: ColorSource) -> String?
}

extension ImageCodec {
    static func transformInput(of data: [UInt8], info: ImageInfo) -> ColorTransform.Input {
        ColorTransform.Input(channels: info.channels)
    }
    static func convertsLate(_ data: [UInt8], info: ImageInfo) -> Bool { true }
    static func isUprightSRGB(_ data: [UInt8], info: ImageInfo) -> Bool { false }
    static func toneMapping(of data: [UInt8], source: ColorSource) -> String? { nil }
}

/// The registry: every format TweetCache reads, and the codec that reads it.
enum ImageCodecs {
    static let all: [any ImageCodec.Type] = [JPEGDecoder.self, PNGDecoder.self, WebPDecoder.self, GIFDecoder.self, HEIFDecoder.self]

    /// The codec for `format`, or nil for a format recognised but not read.
    static func codec(for format: ImageFormat) -> (any ImageCodec.Type)? {
        all.first { $0.formats.contains(format) }
    }
}

extension JPEGDecoder: ImageCodec {
    static var formats: Set<ImageFormat> { [.jpeg] }
    static func info(of data: [UInt8], format: ImageFormat) throws(ImagingError) -> ImageInfo { try info(of: data) }
    static func decode(_ data: [UInt8], info: ImageInfo, options: DecodeOptions) throws(ImagingError) -> DecodedImage {
        try decode(data, scaleDenominator: options.scaleDenominator, convert: options.convertToSRGB)
    }
    static func colorSource(of data: [UInt8], info: ImageInfo) -> ColorSource { colorSource(of: data) }
    static func transformInput(of data: [UInt8], info: ImageInfo) -> ColorTransform.Input {
        (try? header(of: data)).map(transformInput) ?? .rgb8
    }
    static func convertsLate(_ data: [UInt8], info: ImageInfo) -> Bool {
        guard let header = try? header(of: data) else { return false }
        return transformInput(header) == .rgb8
    }
    static func isUprightSRGB(_ data: [UInt8], info: ImageInfo) -> Bool {
        guard info.orientation == .up, convertsLate(data, info: info) else { return false }
        return colorSource(of: data) == .sRGB
    }
}

extension PNGDecoder: ImageCodec {
    static var formats: Set<ImageFormat> { [.png] }
    static func info(of data: [UInt8], format: ImageFormat) throws(ImagingError) -> ImageInfo { try info(of: data) }
    static func decode(_ data: [UInt8], info: ImageInfo, options: DecodeOptions) throws(ImagingError) -> DecodedImage {
        try decode(data, info: info, convert: options.convertToSRGB)
    }
    static func colorSource(of data: [UInt8], info: ImageInfo) -> ColorSource { colorSource(of: data) }
    static func convertsLate(_ data: [UInt8], info: ImageInfo) -> Bool {
        guard let header = try? header(of: data) else { return false }
        return header.bit_depth != 16
    }
    static func isUprightSRGB(_ data: [UInt8], info: ImageInfo) -> Bool {
        info.orientation == .up && colorSource(of: data) == .sRGB
    }
}

extension WebPDecoder: ImageCodec {
    static var formats: Set<ImageFormat> { [.webp] }
    static func info(of data: [UInt8], format: ImageFormat) throws(ImagingError) -> ImageInfo { try info(of: data) }
    static func decode(_ data: [UInt8], info: ImageInfo, options: DecodeOptions) throws(ImagingError) -> DecodedImage {
        DecodedImage(image: try decode(data, info: info, scaleDenominator: options.scaleDenominator, convert: options.convertToSRGB))
    }
    static func colorSource(of data: [UInt8], info: ImageInfo) -> ColorSource { colorSource(of: data) }
}

extension GIFDecoder: ImageCodec {
    static var formats: Set<ImageFormat> { [.gif] }
    static func info(of data: [UInt8], format: ImageFormat) throws(ImagingError) -> ImageInfo { try info(of: data) }
    static func decode(_ data: [UInt8], info: ImageInfo, options: DecodeOptions) throws(ImagingError) -> DecodedImage {
        try decode(data, info: info)
    }
    /// GIF colours are sRGB by convention.
    static func colorSource(of data: [UInt8], info: ImageInfo) -> ColorSource { .sRGB }
}

extension HEIFDecoder: ImageCodec {
    static var formats: Set<ImageFormat> { [.avif, .heic] }
    static func decode(_ data: [UInt8], info: ImageInfo, options: DecodeOptions) throws(ImagingError) -> DecodedImage {
        DecodedImage(image: try decode(data, info: info, convert: options.convertToSRGB))
    }
    static func colorSource(of data: [UInt8], info: ImageInfo) -> ColorSource { colorSource(of: data, format: info.format) }
    static func convertsLate(_ data: [UInt8], info: ImageInfo) -> Bool {
        // HDR is tone-mapped from the decoder's full-depth samples, never from 8 bits.
        guard case .chromaticities(_, let curve) = colorSource(of: data, info: info) else { return true }
        return !curve.isHDR
    }
    static func toneMapping(of data: [UInt8], source: ColorSource) -> String? {
        toneMapper(for: source, data: data)?.summary
    }
}

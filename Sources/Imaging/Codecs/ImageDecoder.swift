internal import CTweetCache

/// Reads JPEG, PNG, GIF, WebP, AVIF and HEIF files into ``PixelBuffer``s,
/// choosing the codec from the bytes themselves, in sRGB.
///
/// Every input is treated as hostile: the format is sniffed, the header is read
/// and checked against ``DecodeOptions/maxPixels`` before any pixel memory is
/// allocated, and damaged or truncated data becomes an ``ImagingError`` rather
/// than a partly grey image. Colours described by an ICC profile, PNG colour
/// chunks or a HEIF nclx box are converted to sRGB here, once, so everything
/// derived from the pixels agrees (``DecodeOptions/convertToSRGB``). Safe to
/// call from any thread concurrently.
public enum ImageDecoder {
    /// The image's format, size and orientation, from its header alone.
    public static func info(of data: [UInt8]) throws(ImagingError) -> ImageInfo {
        switch ImageFormat.sniff(data) {
        case .jpeg: try JPEGDecoder.info(of: data)
        case .png: try PNGDecoder.info(of: data)
        case .webp: try WebPDecoder.info(of: data)
        case .gif: try GIFDecoder.info(of: data)
        case let format? where format == .avif || format == .heic: try HEIFDecoder.info(of: data, format: format)
        case let format?: throw .unsupportedFormat(format)
        case nil: throw .unrecognizedFormat
        }
    }

    /// The decoded pixels: RGB, or RGBA when the file has any transparency
    /// (``ImageInfo/channels``), upright unless `options.applyOrientation` is false,
    /// at 1/``DecodeOptions/scaleDenominator`` size for formats that scale on load.
    /// A damaged file that browsers show decodes as they show it; ``decodeReporting(_:options:)``
    /// says what was wrong with it.
    public static func decode(_ data: [UInt8], options: DecodeOptions = .init()) throws(ImagingError) -> PixelBuffer {
        try decodeReporting(data, options: options).image
    }

    /// ``decode(_:options:)``, and what was wrong with the file when it decoded only
    /// in part or with repairs (``ImageDamage``), for callers that record it.
    public static func decodeReporting(_ data: [UInt8], options: DecodeOptions = .init()) throws(ImagingError) -> DecodedImage {
        try options.validate()
        let info = try info(of: data)
        try options.checkPixelLimit(width: info.width, height: info.height)
        let convert = options.convertToSRGB
        var decoded: DecodedImage = switch info.format {
        case .jpeg: try JPEGDecoder.decode(data, scaleDenominator: options.scaleDenominator, convert: convert)
        case .png: try PNGDecoder.decode(data, info: info, convert: convert)
        case .webp: DecodedImage(image: try WebPDecoder.decode(data, info: info, scaleDenominator: options.scaleDenominator, convert: convert))
        case .gif: try GIFDecoder.decode(data, info: info)
        case .avif, .heic: DecodedImage(image: try HEIFDecoder.decode(data, info: info, convert: convert))
        }
        if options.applyOrientation { decoded.image = decoded.image.oriented(info.orientation) }
        return decoded
    }

    /// The colour source of an image whose decoded RGB(A) pixels can be converted
    /// after decoding (anything but CMYK/YCCK JPEG and 16-bit PNG, which convert
    /// inside their decoder), or nil. For callers that shrink first and convert the
    /// small result: the conversion costs per pixel, and a thumbnail has few.
    static func lateColorSource(of data: [UInt8], info: ImageInfo) -> ColorSource? {
        let source: ColorSource
        switch info.format {
        case .jpeg:
            guard let header = try? JPEGDecoder.header(of: data), JPEGDecoder.transformInput(header) == .rgb8 else { return nil }
            source = JPEGDecoder.colorSource(of: data)
        case .png:
            guard let header = try? PNGDecoder.header(of: data), header.bit_depth != 16 else { return nil }
            source = PNGDecoder.colorSource(of: data)
        case .webp: source = WebPDecoder.colorSource(of: data)
        case .gif: source = .sRGB
        case .avif, .heic:
            source = HEIFDecoder.colorSource(of: data, format: info.format)
            // HDR is tone-mapped from the decoder's full-depth samples, never from 8 bits.
            if case .chromaticities(_, let curve) = source, curve.isHDR { return nil }
        }
        return source
    }

    /// Whether the file is already what a thumbnail of it would be, so a server may
    /// send it as it is: a JPEG or PNG with no orientation to apply, in sRGB or saying
    /// nothing about its colours, and not CMYK. Everything else (a turned photo, a
    /// profile, chromaticities, inks) a browser would show differently from its
    /// converted thumbnail, so it is converted.
    public static func isUprightSRGB(_ data: [UInt8]) -> Bool {
        guard let info = try? info(of: data), info.orientation == .up else { return false }
        switch info.format {
        case .jpeg:
            guard let header = try? JPEGDecoder.header(of: data), JPEGDecoder.transformInput(header) == .rgb8 else { return false }
            return JPEGDecoder.colorSource(of: data) == .sRGB
        case .png:
            return PNGDecoder.colorSource(of: data) == .sRGB
        case .webp, .gif, .avif, .heic:
            return false
        }
    }

    /// What the file says about its colours and what decoding does with that:
    /// the profile's name, and why a profile is ignored when it is (a profile that
    /// lies about its size or colour space is read as sRGB, as browsers do).
    public static func colorReport(of data: [UInt8]) throws(ImagingError) -> ColorReport {
        let info = try info(of: data)
        let source: ColorSource
        var input = ColorTransform.Input(channels: info.channels)
        switch info.format {
        case .jpeg:
            source = JPEGDecoder.colorSource(of: data)
            input = JPEGDecoder.transformInput(try JPEGDecoder.header(of: data))
        case .png: source = PNGDecoder.colorSource(of: data)
        case .webp: source = WebPDecoder.colorSource(of: data)
        case .gif: source = .sRGB
        case .avif, .heic: source = HEIFDecoder.colorSource(of: data, format: info.format)
        }
        var report = ColorReport(source: source, profileName: nil, converted: false, ignoredBecause: nil)
        if case .iccProfile(let bytes) = source {
            var details = tc_icc_info()
            var message = CodecShim.messageBuffer()
            let status = bytes.withUnsafeBufferPointer { tc_icc_inspect($0.baseAddress, $0.count, &details, &message) }
            if status == TC_OK {
                report.profileName = withUnsafeBytes(of: details.description) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
            }
        }
        guard source != .sRGB else { return report }
        if let mapper = HEIFDecoder.toneMapper(for: source, data: data) {
            report.converted = true
            report.toneMapping = mapper.summary
            return report
        }
        switch ColorTransform.make(source, input: input, outChannels: info.channels) {
        case .success: report.converted = true
        case .failure(let failure): report.ignoredBecause = failure.reason
        }
        return report
    }
}

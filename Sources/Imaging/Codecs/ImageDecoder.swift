internal import CTweetCache

/// Reads JPEG, PNG, GIF, WebP, AVIF and HEIF files into ``PixelBuffer``s,
/// choosing the codec from the bytes themselves, in sRGB.
///
/// Every input is treated as hostile: the format is sniffed, the header is read
/// and checked against ``DecodeOptions/maxPixels`` before any pixel memory is
/// allocated, and data that cannot be shown becomes an ``ImagingError``; a damaged
/// file browsers show is shown as they show it, with an ``ImageDamage``. Each format
/// is one ``ImageCodec`` in ``ImageCodecs``'s registry. Colours described by an ICC profile, PNG colour
/// chunks or a HEIF nclx box are converted to sRGB here, once, so everything
/// derived from the pixels agrees (``DecodeOptions/convertToSRGB``). Safe to
/// call from any thread concurrently.
public enum ImageDecoder {
    /// The image's format, size and orientation, from its header alone.
    public static func info(of data: [UInt8]) throws(ImagingError) -> ImageInfo {
        guard let format = ImageFormat.sniff(data) else { throw .unrecognizedFormat }
        guard let codec = ImageCodecs.codec(for: format) else { throw .unsupportedFormat(format) }
        return try codec.info(of: data, format: format)
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
        guard let codec = ImageCodecs.codec(for: info.format) else { throw .unsupportedFormat(info.format) }
        var decoded = try codec.decode(data, info: info, options: options)
        if options.applyOrientation { decoded.image = decoded.image.oriented(info.orientation) }
        return decoded
    }

    /// The colour source of an image whose decoded RGB(A) pixels can be converted
    /// after decoding (anything but CMYK/YCCK JPEG, 16-bit PNG and HDR, which convert
    /// inside their decoder), or nil. For callers that shrink first and convert the
    /// small result: the conversion costs per pixel, and a thumbnail has few.
    static func lateColorSource(of data: [UInt8], info: ImageInfo) -> ColorSource? {
        guard let codec = ImageCodecs.codec(for: info.format), codec.convertsLate(data, info: info) else { return nil }
        return codec.colorSource(of: data, info: info)
    }

    /// Whether the file is already what a thumbnail of it would be, so a server may
    /// send it as it is: a JPEG or PNG with no orientation to apply, in sRGB or saying
    /// nothing about its colours, and not CMYK. Everything else (a turned photo, a
    /// profile, chromaticities, inks) a browser would show differently from its
    /// converted thumbnail, so it is converted.
    public static func isUprightSRGB(_ data: [UInt8]) -> Bool {
        guard let info = try? info(of: data), let codec = ImageCodecs.codec(for: info.format) else { return false }
        return codec.isUprightSRGB(data, info: info)
    }

    /// What the file says about its colours and what decoding does with that:
    /// the profile's name, and why a profile is ignored when it is (a profile that
    /// lies about its size or colour space is read as sRGB, as browsers do).
    public static func colorReport(of data: [UInt8]) throws(ImagingError) -> ColorReport {
        let info = try info(of: data)
        guard let codec = ImageCodecs.codec(for: info.format) else { throw .unsupportedFormat(info.format) }
        let source = codec.colorSource(of: data, info: info)
        let input = codec.transformInput(of: data, info: info)
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
        if let toneMapping = codec.toneMapping(of: data, source: source) {
            report.converted = true
            report.toneMapping = toneMapping
            return report
        }
        switch ColorTransform.make(source, input: input, outChannels: info.channels) {
        case .success: report.converted = true
        case .failure(let failure): report.ignoredBecause = failure.reason
        }
        return report
    }
}

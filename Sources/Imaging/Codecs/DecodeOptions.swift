/// Limits and shortcuts for one decode.
public struct DecodeOptions: Sendable, Hashable {
    /// Largest width x height accepted, checked against the header before any
    /// pixel memory exists, so a tiny file claiming a gigapixel costs nothing.
    /// For JPEG the full (unscaled) size counts: progressive files buffer every
    /// coefficient at full size whatever the output scale.
    public var maxPixels: Int
    /// Decode at 1/2, 1/4 or 1/8 size (1 = full size), much faster than decoding
    /// full size and resampling for thumbnails: JPEG in the DCT domain, still
    /// WebP through libwebp's rescaler (``ImageInfo/scalesOnLoad``). Ignored for
    /// the other formats.
    public var scaleDenominator: Int
    /// Rotate/mirror according to the EXIF orientation so the result is upright.
    public var applyOrientation: Bool
    /// Convert colours an embedded ICC profile, PNG colour chunks or a HEIF nclx
    /// box describe to sRGB (Little CMS, relative colorimetric). Off only for
    /// tools that want the stored values, such as a check of the codec itself.
    /// Not to be confused with ``Resampler/Options/linearLight`` (`thumb --srgb`),
    /// which is about the space resampling averages in.
    public var convertToSRGB: Bool

    public init(
        maxPixels: Int = 100_000_000, scaleDenominator: Int = 1, applyOrientation: Bool = true,
        convertToSRGB: Bool = true
    ) {
        self.maxPixels = maxPixels
        self.scaleDenominator = scaleDenominator
        self.applyOrientation = applyOrientation
        self.convertToSRGB = convertToSRGB
    }

    /// Refuses impossible options before any work is done.
    func validate() throws(ImagingError) {
        guard maxPixels > 0 else {
            throw .invalidArgument("maxPixels must be positive, got \(maxPixels)")
        }
        guard [1, 2, 4, 8].contains(scaleDenominator) else {
            throw .invalidArgument("scaleDenominator must be 1, 2, 4 or 8, got \(scaleDenominator)")
        }
    }

    /// Refuses a header whose size exceeds ``maxPixels`` (overflow-safe). The
    /// limit never exceeds `Int.max / 4`, so an accepted size always has a
    /// computable byte count at 4 bytes per pixel.
    func checkPixelLimit(width: Int, height: Int) throws(ImagingError) {
        let limit = min(maxPixels, Int.max / 4)
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > limit {
            throw .tooManyPixels(width: width, height: height, limit: limit)
        }
    }
}

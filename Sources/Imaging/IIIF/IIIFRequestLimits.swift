/// The largest output a IIIF service agrees to produce for one image: the
/// `maxWidth`, `maxHeight` and `maxArea` of its `info.json`.
///
/// Besides protecting the server from huge renders, limits are what makes
/// upscaling (`^` sizes) possible at all: the spec only allows it when a
/// service announces `maxWidth` or `maxArea`, so without them `^` requests
/// that would enlarge the region are refused as not implemented.
public struct IIIFRequestLimits: Sendable, Hashable {
    /// Widest output in pixels, or nil for no limit.
    public var maxWidth: Int?
    /// Tallest output in pixels; nil means the same as ``maxWidth``.
    public var maxHeight: Int?
    /// Most output pixels (width x height), or nil for no limit.
    public var maxArea: Int?

    /// Non-positive values are raised to 1, so a misconfigured limit refuses
    /// requests rather than crashing the arithmetic.
    public init(maxWidth: Int? = nil, maxHeight: Int? = nil, maxArea: Int? = nil) {
        self.maxWidth = maxWidth.map { max(1, $0) }
        self.maxHeight = maxHeight.map { max(1, $0) }
        self.maxArea = maxArea.map { max(1, $0) }
    }

    /// No limits: outputs never exceed the region, and `^` cannot enlarge.
    public static let none = IIIFRequestLimits()

    /// The height limit in force: the spec infers `maxHeight = maxWidth` when
    /// only `maxWidth` is given.
    public var effectiveMaxHeight: Int? { maxHeight ?? maxWidth }

    /// Whether `^` sizes may enlarge the region (the spec requires an
    /// announced `maxWidth` or `maxArea` before a server may upscale).
    public var allowsUpscaling: Bool { maxWidth != nil || maxArea != nil }

    /// Whether a `width` x `height` output stays within every limit.
    func admits(width: Int, height: Int) -> Bool {
        if let maxWidth, width > maxWidth { return false }
        if let maxHeight = effectiveMaxHeight, height > maxHeight { return false }
        if let maxArea {
            let (area, overflow) = width.multipliedReportingOverflow(by: height)
            if overflow || area > maxArea { return false }
        }
        return true
    }

    /// The largest size with the aspect ratio of `width` x `height` that fits
    /// the limits, never larger than `width` x `height` unless `upscale`
    /// (and then only when limits bound the result).
    func fit(width: Int, height: Int, upscale: Bool) -> (width: Int, height: Int) {
        let w = Double(width)
        let h = Double(height)
        var scale = upscale && allowsUpscaling ? Double.infinity : 1
        if let maxWidth { scale = min(scale, Double(maxWidth) / w) }
        if let maxHeight = effectiveMaxHeight { scale = min(scale, Double(maxHeight) / h) }
        if let maxArea { scale = min(scale, (Double(maxArea) / (w * h)).squareRoot()) }
        if scale == 1 || !scale.isFinite { return (width, height) }
        var outWidth = IIIFRequestNumber.pixels(w * scale)
        var outHeight = IIIFRequestNumber.pixels(h * scale)
        // Rounding can overshoot a limit by a pixel; take it back.
        if let maxWidth { outWidth = min(outWidth, maxWidth) }
        if let maxHeight = effectiveMaxHeight { outHeight = min(outHeight, maxHeight) }
        if let maxArea, outWidth * outHeight > maxArea {
            if outWidth >= outHeight {
                outWidth = max(1, maxArea / outHeight)
            } else {
                outHeight = max(1, maxArea / outWidth)
            }
        }
        return (outWidth, outHeight)
    }
}

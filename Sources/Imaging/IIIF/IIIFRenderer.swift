/// Produces the image a ``IIIFResolvedRequest`` describes, in the spec's
/// order: region, size, mirror, rotation, quality, format.
///
/// Scaling comes before rotation and colour work so those touch only output
/// pixels. The source may be the full decode or a JPEG decode shrunk by
/// ``IIIFResolvedRequest/decodeScaleDenominator(headroom:)``; the renderer
/// recognises which from its size.
public enum IIIFRenderer {
    public struct Options: Sendable, Hashable {
        /// libjpeg quality, 1-100.
        public var jpegQuality: Int
        /// zlib level, 0-9: low levels are much faster for one-off renders.
        public var pngCompressionLevel: Int
        /// Set `maxThreads` to 1 when requests already run in parallel.
        public var resampler: Resampler.Options

        public init(jpegQuality: Int = 85, pngCompressionLevel: Int = 3, resampler: Resampler.Options = .init()) {
            self.jpegQuality = jpegQuality
            self.pngCompressionLevel = pngCompressionLevel
            self.resampler = resampler
        }
    }

    /// The encoded file (jpg, png or webp) for `resolved`, from `source`: the
    /// upright image of `resolved.imageWidth` x `imageHeight`, or that image
    /// decoded at 1/2, 1/4 or 1/8 (sides rounded up, as libjpeg does).
    public static func render(
        _ resolved: IIIFResolvedRequest, source: PixelBuffer, options: Options = .init()
    ) throws(ImagingError) -> [UInt8] {
        let image = try pixels(resolved, source: source, options: options)
        switch resolved.format {
        case .jpg:
            // One gray channel is a third of the data, and what gray means.
            let colorSpace: JPEGEncoder.ColorSpace = resolved.quality == .gray || resolved.quality == .bitonal
                ? .grayscale : .yCbCr
            return try JPEGEncoder.encode(image, options: .init(quality: options.jpegQuality, colorSpace: colorSpace))
        case .png:
            return try PNGEncoder.encode(image, compressionLevel: options.pngCompressionLevel)
        case .webp:
            // Lossy at JPEG's quality number (libwebp's scale reads about the same); alpha kept losslessly.
            return try WebPEncoder.encode(image, options: .init(quality: Double(options.jpegQuality)))
        default:
            throw .invalidArgument("IIIF format \(resolved.format.rawValue) cannot be written")
        }
    }

    /// The output pixels before encoding, `outputWidth` x `outputHeight`.
    public static func pixels(
        _ resolved: IIIFResolvedRequest, source: PixelBuffer, options: Options = .init()
    ) throws(ImagingError) -> PixelBuffer {
        let scale = try sourceScale(resolved, source: source)
        let region = resolved.region
        var image: PixelBuffer
        if scale == 1 {
            image = try source.cropped(to: region)
            image = try Resampler.resize(image, width: resolved.width, height: resolved.height, options: options.resampler)
        } else {
            // The region in the shrunk decode: edges rounded to its pixels,
            // except that the image's own right and bottom edges keep their
            // fractional position so the geometry matches the full image.
            let d = Double(scale)
            let crop = scaledSpan(
                start: region.x, end: region.maxX, full: resolved.imageWidth, available: source.width, scale: d)
            let rows = scaledSpan(
                start: region.y, end: region.maxY, full: resolved.imageHeight, available: source.height, scale: d)
            image = try source.cropped(to: TileRect(x: crop.start, y: rows.start, width: crop.count, height: rows.count))
            image = try Resampler.resize(
                image, width: resolved.width, height: resolved.height,
                sourceExtent: (crop.extent, rows.extent), options: options.resampler)
        }
        if resolved.rotation != 0 || resolved.mirrored {
            image = try image.rotated(clockwise: resolved.rotation, mirrored: resolved.mirrored)
        }
        switch resolved.quality {
        case .default, .color: break
        case .gray: image = image.grayscale()
        case .bitonal: image = image.bitonal()
        }
        return image
    }

    /// 1, 2, 4 or 8: how much smaller than the full image `source` was decoded.
    static func sourceScale(_ resolved: IIIFResolvedRequest, source: PixelBuffer) throws(ImagingError) -> Int {
        for scale in [1, 2, 4, 8] {
            let w = (resolved.imageWidth + scale - 1) / scale
            let h = (resolved.imageHeight + scale - 1) / scale
            if source.width == w, source.height == h { return scale }
        }
        throw .invalidArgument(
            "source is \(source.width)x\(source.height), not the \(resolved.imageWidth)x\(resolved.imageHeight) image or a 1/2, 1/4 or 1/8 decode of it")
    }

    /// Full-image pixels `start..<end` on one axis of a decode shrunk by `scale`:
    /// the first buffer pixel, how many to crop, and how many source pixels
    /// the output spans (fractional at the image's far edge).
    private static func scaledSpan(
        start: Int, end: Int, full: Int, available: Int, scale: Double
    ) -> (start: Int, count: Int, extent: Double) {
        let first = min(Int((Double(start) / scale).rounded()), available - 1)
        if end >= full {
            return (first, available - first, Double(full) / scale - Double(first))
        }
        let last = min(max(Int((Double(end) / scale).rounded()), first + 1), available)
        return (first, last - first, Double(last - first))
    }
}

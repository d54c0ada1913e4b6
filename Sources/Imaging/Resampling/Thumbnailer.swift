/// Makes list-sized thumbnails from every format ``ImageDecoder`` reads, the
/// way `vipsthumbnail` does: read the header, decode a JPEG or WebP no larger
/// than needed (``ShrinkOnLoad``), in sRGB, reduce to the exact size with Lanczos-3
/// (``Resampler``), turn it upright, encode.
///
/// The thumbnail's long edge is the requested size and the short edge keeps
/// the aspect ratio (see ``size(width:height:longEdge:allowUpscale:)``).
/// Sources already smaller are not enlarged unless asked. Every failure is an
/// ``ImagingError`` for that one image. Safe to call concurrently.
public enum Thumbnailer {
    /// A thumbnail of the image file `data`, `longEdge` pixels on its longer side.
    public static func thumbnail(
        _ data: [UInt8], longEdge: Int, options: ThumbnailOptions = .init()
    ) throws(ImagingError) -> Thumbnail {
        try options.validate(longEdge: longEdge)
        let info = try ImageDecoder.info(of: data)
        var decoding = DecodeOptions(maxPixels: options.maxPixels, applyOrientation: false)
        try decoding.checkPixelLimit(width: info.width, height: info.height)
        let target = try targetSize(
            width: info.displayWidth, height: info.displayHeight, longEdge: longEdge, options: options)
        // Work in the stored orientation and turn only the small result upright.
        let stored = info.orientation.swapsDimensions ? (width: target.height, height: target.width) : target
        if info.format == .webp, info.scalesOnLoad, options.shrinkOnLoad,
           stored.width < info.width, stored.height < info.height {
            // libwebp's rescaler averages the area each output pixel covers (unlike JPEG's 1/8
            // IDCT, block means), so decoding straight at the thumbnail's size is a proper
            // downscale, on encoded values, as libvips does it; no Lanczos pass is left to run.
            try decoding.validate()
            let image = try WebPDecoder.decode(data, info: info, width: stored.width, height: stored.height)
            return try finish(
                image.oriented(info.orientation),
                sourceWidth: info.displayWidth, sourceHeight: info.displayHeight, options: options)
        }
        if info.scalesOnLoad, options.shrinkOnLoad {
            decoding.scaleDenominator = ShrinkOnLoad.scaleDenominator(
                sourceWidth: info.width, sourceHeight: info.height,
                targetWidth: stored.width, targetHeight: stored.height, headroom: options.shrinkOnLoadHeadroom)
        }
        // A profile converts the thumbnail, not the (up to 16x larger) decode it is made from,
        // as libvips does: a tenth of the work, and for the sRGB-curved spaces phones use
        // (Display P3) the same result, since the conversion is linear in linear light.
        // CMYK and 16-bit sources still convert inside their decoder.
        let late = options.shrinkOnLoad ? ImageDecoder.lateColorSource(of: data, info: info) : nil
        if late != nil { decoding.convertToSRGB = false }
        let reported = try ImageDecoder.decodeReporting(data, options: decoding)
        var decoded = reported.image
        var scale = Double(info.scalesOnLoad ? decoding.scaleDenominator : 1)
        if !info.scalesOnLoad, options.shrinkOnLoad {
            // What the codec cannot do on load (GIF, AVIF, HEIF, PNG), a 2x2 box does after:
            // halve while twice the target still fits, then Lanczos the rest, as libvips
            // shrinks before it reduces. Cheap (each halving reads every pixel once) and it
            // keeps the Lanczos kernel narrow.
            while decoded.width / 2 >= options.shrinkOnLoadHeadroom * stored.width,
                  decoded.height / 2 >= options.shrinkOnLoadHeadroom * stored.height {
                decoded = decoded.halved(linearLight: options.linearLight)
                scale *= 2
            }
        }
        var resized = try Resampler.resize(
            decoded, width: stored.width, height: stored.height,
            sourceExtent: (Double(info.width) / scale, Double(info.height) / scale),
            options: options.resampling)
        if let late { ColorConversion.apply(late, to: &resized) }
        var thumbnail = try finish(
            resized.oriented(info.orientation),
            sourceWidth: info.displayWidth, sourceHeight: info.displayHeight, options: options)
        thumbnail.damage = reported.damage
        return thumbnail
    }

    /// A thumbnail of pixels already decoded (and upright), for callers that
    /// decode once to derive several things, such as thumbnails and tiles.
    public static func thumbnail(
        _ image: PixelBuffer, longEdge: Int, options: ThumbnailOptions = .init()
    ) throws(ImagingError) -> Thumbnail {
        try options.validate(longEdge: longEdge)
        let target = try targetSize(width: image.width, height: image.height, longEdge: longEdge, options: options)
        let resized = try Resampler.resize(image, width: target.width, height: target.height, options: options.resampling)
        return try finish(resized, sourceWidth: image.width, sourceHeight: image.height, options: options)
    }

    /// The thumbnail size for a `width` x `height` image: the long edge
    /// becomes `longEdge` and the short edge `max(1, round(short * longEdge / long))`,
    /// so even a 1 x 5000 strip keeps a visible pixel. Without `allowUpscale`,
    /// an image whose long edge is already at most `longEdge` keeps its size.
    public static func size(
        width: Int, height: Int, longEdge: Int, allowUpscale: Bool = false
    ) -> (width: Int, height: Int) {
        let width = max(width, 1)
        let height = max(height, 1)
        let longEdge = max(longEdge, 1)
        let long = max(width, height)
        if long <= longEdge, !allowUpscale { return (width, height) }
        // Exact for every size below 2^53, and ties round up as stated.
        let ratio = Double(longEdge) / Double(long)
        let short = max(1, min(longEdge, Int((Double(min(width, height)) * ratio).rounded())))
        return width >= height ? (longEdge, short) : (short, longEdge)
    }

    /// ``size(width:height:longEdge:allowUpscale:)``, refusing an enlargement
    /// beyond the pixel limit.
    private static func targetSize(
        width: Int, height: Int, longEdge: Int, options: ThumbnailOptions
    ) throws(ImagingError) -> (width: Int, height: Int) {
        let target = size(width: width, height: height, longEdge: longEdge, allowUpscale: options.allowUpscale)
        let (pixels, overflow) = target.width.multipliedReportingOverflow(by: target.height)
        if overflow || pixels > options.maxPixels {
            throw .tooManyPixels(width: target.width, height: target.height, limit: options.maxPixels)
        }
        return target
    }

    /// Encodes: PNG when there is alpha to keep, JPEG otherwise.
    private static func finish(
        _ image: PixelBuffer, sourceWidth: Int, sourceHeight: Int, options: ThumbnailOptions
    ) throws(ImagingError) -> Thumbnail {
        let format: ImageFormat = image.hasAlpha ? .png : .jpeg
        let encoded = image.hasAlpha
            ? try PNGEncoder.encode(image)
            : try JPEGEncoder.encode(image, quality: options.quality)
        return Thumbnail(
            image: image, encoded: encoded, format: format, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
    }
}

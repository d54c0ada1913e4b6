/// How ``Thumbnailer`` decodes, filters and encodes.
public struct ThumbnailOptions: Sendable, Hashable {
    /// JPEG quality (1-100) of opaque thumbnails; 85 looks like the original
    /// at thumbnail sizes for a fraction of the bytes.
    public var quality: Int
    /// Filter in linear light; see ``Resampler/Options/linearLight``.
    public var linearLight: Bool
    /// Largest source image accepted, checked from its header before decoding;
    /// also bounds an upscaled thumbnail's size.
    public var maxPixels: Int
    /// Whether a source smaller than the requested size is enlarged. Off by
    /// default: upscaling only adds bytes and blur, a viewer can scale it.
    public var allowUpscale: Bool
    /// Decode JPEGs and WebPs at reduced size when the thumbnail is much smaller
    /// (see ``ShrinkOnLoad``), and halve other formats with a 2x2 box after decoding
    /// while twice the target still fits: several times faster for a barely
    /// measurable change. Off gives the reference full-size decode and one Lanczos pass.
    public var shrinkOnLoad: Bool
    /// How many times the target size a shrink-on-load decode must keep (see
    /// ``ShrinkOnLoad/scaleDenominator(sourceWidth:sourceHeight:targetWidth:targetHeight:headroom:)``).
    /// Internal: 2 is the right trade, 1 exists to measure it.
    var shrinkOnLoadHeadroom = 2
    /// Threads one thumbnail may use for filtering; see ``Resampler/Options/maxThreads``.
    public var maxThreads: Int?

    public init(
        quality: Int = 85, linearLight: Bool = true, maxPixels: Int = 100_000_000, allowUpscale: Bool = false,
        shrinkOnLoad: Bool = true, maxThreads: Int? = nil
    ) {
        self.quality = quality
        self.linearLight = linearLight
        self.maxPixels = maxPixels
        self.allowUpscale = allowUpscale
        self.shrinkOnLoad = shrinkOnLoad
        self.maxThreads = maxThreads
    }

    var resampling: Resampler.Options {
        Resampler.Options(linearLight: linearLight, maxThreads: maxThreads)
    }

    /// Refuses impossible settings before any decoding.
    func validate(longEdge: Int) throws(ImagingError) {
        guard longEdge > 0 else {
            throw .invalidArgument("thumbnail size must be positive, got \(longEdge)")
        }
        guard (1...100).contains(quality) else {
            throw .invalidArgument("JPEG quality must be 1-100, got \(quality)")
        }
        guard maxPixels > 0 else {
            throw .invalidArgument("maxPixels must be positive, got \(maxPixels)")
        }
        if let maxThreads, maxThreads < 1 {
            throw .invalidArgument("maxThreads must be at least 1, got \(maxThreads)")
        }
    }
}

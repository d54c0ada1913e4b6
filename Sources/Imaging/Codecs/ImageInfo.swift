/// What an image's header says, learned without decoding any pixels.
///
/// Cheap enough to call on every download, so callers can record dimensions
/// and refuse oversized images before paying for a decode.
public struct ImageInfo: Sendable, Hashable {
    public var format: ImageFormat
    /// Stored width in pixels, before ``orientation`` is applied.
    public var width: Int
    /// Stored height in pixels, before ``orientation`` is applied.
    public var height: Int
    /// Channels of the ``PixelBuffer`` a full decode produces: 3 (RGB) or 4 (RGBA).
    public var channels: Int
    /// Whether the image carries transparency (an alpha channel or a PNG tRNS chunk).
    public var hasAlpha: Bool
    /// The EXIF orientation; `.up` when the file has none.
    public var orientation: ImageOrientation
    /// A progressive JPEG or an Adam7-interlaced PNG or GIF.
    public var progressive: Bool
    /// Frames in an animated GIF or WebP (decoding yields the first); 1 for a still image.
    public var frames: Int
    /// Whether ``DecodeOptions/scaleDenominator`` shrinks this image while decoding:
    /// JPEG (scaled IDCT) and still WebP (libwebp's area-averaging rescaler).
    public var scalesOnLoad: Bool

    public init(
        format: ImageFormat, width: Int, height: Int, channels: Int, hasAlpha: Bool,
        orientation: ImageOrientation = .up, progressive: Bool = false, frames: Int = 1, scalesOnLoad: Bool? = nil
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.channels = channels
        self.hasAlpha = hasAlpha
        self.orientation = orientation
        self.progressive = progressive
        self.frames = frames
        self.scalesOnLoad = scalesOnLoad ?? (format == .jpeg)
    }

    /// The size a decode at 1/`denominator` produces (rounded up, as libjpeg does),
    /// in the stored orientation; the full size for formats that do not scale on load.
    public func decodedSize(scaleDenominator denominator: Int) -> (width: Int, height: Int) {
        let d = scalesOnLoad ? max(1, denominator) : 1
        return ((width + d - 1) / d, (height + d - 1) / d)
    }

    /// Width as displayed, once the orientation is applied.
    public var displayWidth: Int { orientation.swapsDimensions ? height : width }
    /// Height as displayed, once the orientation is applied.
    public var displayHeight: Int { orientation.swapsDimensions ? width : height }
}

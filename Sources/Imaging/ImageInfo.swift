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
    /// A progressive JPEG or an Adam7-interlaced PNG.
    public var progressive: Bool

    public init(
        format: ImageFormat, width: Int, height: Int, channels: Int, hasAlpha: Bool,
        orientation: ImageOrientation = .up, progressive: Bool = false
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.channels = channels
        self.hasAlpha = hasAlpha
        self.orientation = orientation
        self.progressive = progressive
    }

    /// Width as displayed, once the orientation is applied.
    public var displayWidth: Int { orientation.swapsDimensions ? height : width }
    /// Height as displayed, once the orientation is applied.
    public var displayHeight: Int { orientation.swapsDimensions ? width : height }
}

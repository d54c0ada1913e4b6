/// A IIIF image request applied to one image: exactly which pixels to take,
/// how big to make them, and how to turn and colour them. What
/// ``IIIFRenderer`` needs, and the canonical URI a server can cache under.
public struct IIIFResolvedRequest: Sendable, Hashable {
    /// The full image's size (upright), as in `info.json`.
    public let imageWidth: Int
    public let imageHeight: Int
    /// The extracted region in full-image pixels, cropped to the image.
    public let region: TileRect
    /// The scaled size, before rotation.
    public let width: Int
    public let height: Int
    /// Clockwise degrees: 0, 90, 180 or 270.
    public let rotation: Int
    /// Mirror left to right, before rotating.
    public let mirrored: Bool
    public let quality: IIIFImageRequest.Quality
    public let format: IIIFImageRequest.Format
    /// `full` or `x,y,w,h` (spec 4.8).
    public let canonicalRegion: String
    /// `max`, `^max`, `w,h` or `^w,h` (spec 4.8). For pyramid lookups
    /// (``PyramidGeometry/iiifTile(region:size:)``) use ``sizeParameter`` instead:
    /// a full-resolution tile is canonically `max`, but stored as `w,h`.
    public let canonicalSize: String

    public init(
        imageWidth: Int, imageHeight: Int, region: TileRect, width: Int, height: Int,
        rotation: Int, mirrored: Bool, quality: IIIFImageRequest.Quality, format: IIIFImageRequest.Format,
        canonicalRegion: String, canonicalSize: String
    ) {
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.region = region
        self.width = width
        self.height = height
        self.rotation = rotation
        self.mirrored = mirrored
        self.quality = quality
        self.format = format
        self.canonicalRegion = canonicalRegion
        self.canonicalSize = canonicalSize
    }

    /// Width of the returned image (after rotation).
    public var outputWidth: Int { rotation % 180 == 0 ? width : height }
    /// Height of the returned image (after rotation).
    public var outputHeight: Int { rotation % 180 == 0 ? height : width }

    /// Whether the output is larger than the region on some axis.
    public var isUpscaled: Bool { width > region.width || height > region.height }

    /// `w,h` of the scaled region, the form static pyramids store tiles under.
    public var sizeParameter: String { "\(width),\(height)" }

    /// `0`, `90`, `!180`...
    public var canonicalRotation: String { (mirrored ? "!" : "") + String(rotation) }

    /// `default`, `gray` or `bitonal` (`color` is this service's default).
    public var canonicalQuality: String { quality.canonical.rawValue }

    /// `region/size/rotation/quality.format`, relative to the image's base
    /// URI: one string per distinct output, fit for a cache key or a
    /// `Link: <...>;rel="canonical"` header.
    public var canonicalPath: String {
        "\(canonicalRegion)/\(canonicalSize)/\(canonicalRotation)/\(canonicalQuality).\(format.rawValue)"
    }

    /// The JPEG scale denominator (1, 2, 4 or 8) at which the source may be
    /// decoded and still hold the region at `headroom` times the output size,
    /// so a small rendition of a big original skips most of the decode.
    /// ``IIIFRenderer`` accepts the shrunk decode as its source. The ratio is
    /// per axis, so it holds whether or not EXIF orientation swaps the axes.
    public func decodeScaleDenominator(headroom: Int = 2) -> Int {
        ShrinkOnLoad.scaleDenominator(
            sourceWidth: region.width, sourceHeight: region.height,
            targetWidth: width, targetHeight: height, headroom: headroom)
    }

    /// `base` with the ``decodeScaleDenominator(headroom:)`` for this request.
    public func decodeOptions(_ base: DecodeOptions = .init(), headroom: Int = 2) -> DecodeOptions {
        var options = base
        options.scaleDenominator = decodeScaleDenominator(headroom: headroom)
        return options
    }
}

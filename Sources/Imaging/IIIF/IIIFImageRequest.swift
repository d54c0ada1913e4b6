/// One IIIF Image API 3.0 image request, `{region}/{size}/{rotation}/{quality}.{format}`,
/// parsed but not yet applied to an image.
///
/// Parsing needs no image, so a server can refuse garbage before touching
/// the cache; ``resolve(width:height:limits:)`` then turns the request into
/// pixels and sizes for one image (level 2: every region and size form,
/// `^` upscaling within limits, mirroring, multiples of 90 degrees, all four
/// qualities, jpg and png).
public struct IIIFImageRequest: Sendable, Hashable {
    public var region: Region
    public var size: Size
    public var rotation: Rotation
    public var quality: Quality
    public var format: Format

    public init(region: Region, size: Size, rotation: Rotation, quality: Quality, format: Format) {
        self.region = region
        self.size = size
        self.rotation = rotation
        self.quality = quality
        self.format = format
    }

    /// Segments longer than this are refused outright (the longest valid
    /// one, `pct:` with four long decimals, is about 100 characters).
    static let maxSegmentLength = 128

    /// Parses the four path segments after the image identifier, already
    /// percent-decoded. Every segment's syntax is checked before support, so
    /// a malformed request is always 400 and a well-formed one this server
    /// cannot honour (rotation 45, `webp`) is 501.
    public static func parse(
        region: some StringProtocol, size: some StringProtocol, rotation: some StringProtocol,
        qualityAndFormat: some StringProtocol
    ) throws(IIIFRequestError) -> IIIFImageRequest {
        for segment in [Substring(region), Substring(size), Substring(rotation), Substring(qualityAndFormat)]
        where segment.utf8.count > maxSegmentLength {
            throw .badRequest("request segment \"\(segment.prefix(32))...\" is too long")
        }
        let parsedRegion = try Region.parse(region)
        let parsedSize = try Size.parse(size)
        let parsedRotation = try Rotation.parse(rotation)
        guard let dot = qualityAndFormat.lastIndex(of: ".") else {
            throw .badRequest("\"\(qualityAndFormat)\" is not quality.format")
        }
        let quality = try Quality.parse(qualityAndFormat[..<dot])
        let format = try Format.parse(qualityAndFormat[qualityAndFormat.index(after: dot)...])
        guard parsedRotation.isSupported else {
            throw .notImplemented("rotation by \(rotation) degrees: only multiples of 90 are supported")
        }
        guard format.isSupported else {
            throw .notImplemented("format \(format.rawValue): only jpg and png are supported")
        }
        return IIIFImageRequest(
            region: parsedRegion, size: parsedSize, rotation: parsedRotation, quality: quality, format: format)
    }

    /// The request applied to a `width` x `height` image (upright, as
    /// `info.json` reports it) under the service's `limits`.
    public func resolve(
        width: Int, height: Int, limits: IIIFRequestLimits = .none
    ) throws(IIIFRequestError) -> IIIFResolvedRequest {
        guard let degrees = rotation.quarterTurnDegrees else {
            throw .notImplemented("rotation by \(rotation.degrees) degrees: only multiples of 90 are supported")
        }
        guard format.isSupported else {
            throw .notImplemented("format \(format.rawValue): only jpg and png are supported")
        }
        let rect = try region.rect(imageWidth: width, imageHeight: height)
        let output = try size.resolve(regionWidth: rect.width, regionHeight: rect.height, limits: limits)

        let canonicalRegion = rect == TileRect(x: 0, y: 0, width: width, height: height) ? "full" : rect.description
        let canonicalSize: String
        let enlarges = output.width > rect.width || output.height > rect.height
        if output == limits.fit(width: rect.width, height: rect.height, upscale: false) {
            canonicalSize = "max"
        } else if enlarges {
            let upscaledMax = limits.fit(width: rect.width, height: rect.height, upscale: true)
            canonicalSize = output == upscaledMax ? "^max" : "^\(output.width),\(output.height)"
        } else {
            canonicalSize = "\(output.width),\(output.height)"
        }
        return IIIFResolvedRequest(
            imageWidth: width, imageHeight: height, region: rect,
            width: output.width, height: output.height,
            rotation: degrees, mirrored: rotation.mirrored, quality: quality, format: format,
            canonicalRegion: canonicalRegion, canonicalSize: canonicalSize)
    }
}

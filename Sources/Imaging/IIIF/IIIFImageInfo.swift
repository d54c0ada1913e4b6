#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `info.json` of a IIIF Image API 3.0 service: what a viewer reads to
/// learn the image size and which tiles and whole-image sizes it may request.
///
/// Codable so a tile server can serve it as is, or decode a stored one and
/// add what a live service supports (`extraFormats`, `maxWidth`...).
public struct IIIFImageInfo: Codable, Sendable, Hashable {
    /// One `tiles` entry: square tiles of `width` at each scale factor.
    public struct Tiles: Codable, Sendable, Hashable {
        public var width: Int
        public var height: Int
        public var scaleFactors: [Int]

        public init(width: Int, height: Int, scaleFactors: [Int]) {
            self.width = width
            self.height = height
            self.scaleFactors = scaleFactors
        }
    }

    /// One `sizes` entry: a whole-image rendition available as `full/w,h`.
    public struct Size: Codable, Sendable, Hashable {
        public var width: Int
        public var height: Int

        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    public static let context = "http://iiif.io/api/image/3/context.json"
    public static let protocolURI = "http://iiif.io/api/image"

    public var context: String
    /// Base URI of the image; tile URLs are `id/region/size/rotation/quality.format`.
    public var id: String
    public var type: String
    public var `protocol`: String
    /// `level0` for a static tree: only the listed tiles and sizes exist.
    public var profile: String
    public var width: Int
    public var height: Int
    public var tiles: [Tiles]
    public var sizes: [Size]
    /// Output limits of a live service; nil (omitted) for a static tree.
    public var maxWidth: Int?
    public var maxHeight: Int?
    public var maxArea: Int?
    /// What a live service offers beyond its profile; nil (omitted) when nothing.
    public var extraQualities: [String]?
    public var extraFormats: [String]?
    public var extraFeatures: [String]?
    public var preferredFormats: [String]?

    /// The level-0 description of `geometry`'s IIIF tiles and sizes.
    public init(geometry: PyramidGeometry, id: String) {
        context = Self.context
        self.id = id
        type = "ImageService3"
        self.protocol = Self.protocolURI
        profile = "level0"
        width = geometry.width
        height = geometry.height
        tiles = [Tiles(width: geometry.tileSize, height: geometry.tileSize, scaleFactors: geometry.iiifScaleFactors)]
        sizes = geometry.iiifSizeLevels.map { Size(width: $0.width, height: $0.height) }
    }

    enum CodingKeys: String, CodingKey {
        case context = "@context"
        case id, type, `protocol`, profile, width, height, tiles, sizes
        case maxWidth, maxHeight, maxArea, extraQualities, extraFormats, extraFeatures, preferredFormats
    }

    /// The same image described as a live level-2 service (``IIIFImageRequest``
    /// and ``IIIFRenderer``): the static tiles and sizes stay valid, and every
    /// quality and feature it adds beyond the level-2 profile is announced,
    /// since clients must assume anything unlisted is unsupported.
    public func level2(limits: IIIFRequestLimits = .none) -> IIIFImageInfo {
        var info = self
        info.profile = "level2"
        info.maxWidth = limits.maxWidth
        info.maxHeight = limits.maxWidth == nil ? nil : limits.maxHeight
        info.maxArea = limits.maxArea
        info.extraQualities = ["color", "gray", "bitonal"]
        // Level 2 already promises jpg and png; WebP is the extra, with alpha at a fraction of PNG's bytes.
        info.extraFormats = ["webp"]
        info.extraFeatures = ["mirroring"] + (limits.allowsUpscaling ? ["sizeUpscaling"] : [])
        return info
    }

    /// Pretty-printed JSON with stable key order and unescaped slashes in URIs.
    public func jsonBytes() throws(ImagingError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(self)) + [0x0A]
        } catch {
            throw .encodeFailed("cannot encode info.json: \(error)")
        }
    }
}

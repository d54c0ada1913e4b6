import Foundation

/// A cached (or failed) URL: which bytes it resolved to.
public struct MediaRef: Codable, Sendable, Equatable {
    public var url: String
    public var sha256: String?
    public var bytes: Int?
    public var contentType: String?
    public var error: MediaError?
    /// Pixel size of the cached original (after EXIF orientation), once decoded.
    public var width: Int?
    public var height: Int?
    public var thumbnails: [ThumbnailRef]?
    public var tiles: TileRefs?
    /// Why no thumbnails or tiles could be made (e.g. a GIF, a corrupt image).
    public var deriveError: String?
    /// What is wrong with an image that was shown all the same, as browsers show it
    /// (a JPEG whose data ends early, a GIF out of the specification): its thumbnails
    /// and tiles show what a browser would, but the bytes are not a whole image.
    public var decodeWarning: String? = nil
    /// The PDQ perceptual hash of the image as displayed (64 hex digits, the reference's
    /// form), its quality (0-100; below 50 too flat to match) and the hashes of the image
    /// turned and mirrored (rotate 90, 180, 270, flip x, flip y, flip +1, flip -1).
    public var pdq: String? = nil
    public var pdqQuality: Int? = nil
    public var pdqDihedral: [String]? = nil

    enum CodingKeys: String, CodingKey {
        case url, sha256, bytes, error, width, height, thumbnails, tiles, pdq
        case contentType = "content_type"
        case deriveError = "derive_error"
        case decodeWarning = "decode_warning"
        case pdqQuality = "pdq_quality"
        case pdqDihedral = "pdq_dihedral"
    }

    public init(
        url: String,
        sha256: String? = nil,
        bytes: Int? = nil,
        contentType: String? = nil,
        error: MediaError? = nil,
        width: Int? = nil,
        height: Int? = nil,
        thumbnails: [ThumbnailRef]? = nil,
        tiles: TileRefs? = nil,
        deriveError: String? = nil
    ) {
        self.url = url
        self.sha256 = sha256
        self.bytes = bytes
        self.contentType = contentType
        self.error = error
        self.width = width
        self.height = height
        self.thumbnails = thumbnails
        self.tiles = tiles
        self.deriveError = deriveError
    }
}

/// A thumbnail of a cached image; `path` is relative to the cache root.
public struct ThumbnailRef: Codable, Sendable, Equatable {
    public var size: Int
    public var path: String
    public var width: Int
    public var height: Int
    /// The SHA-256 of the thumbnail's bytes when it was made: a thumbnail is named
    /// by its original, not by its content, so this is what a copy read back from a
    /// bucket is checked against before anyone is served it. Absent in manifests
    /// written before it was recorded.
    public var sha256: String?

    public init(
        size: Int,
        path: String,
        width: Int,
        height: Int,
        sha256: String? = nil
    ) {
        self.size = size
        self.path = path
        self.width = width
        self.height = height
        self.sha256 = sha256
    }
}

/// Where an image's zoom pyramid is, relative to the cache root.
public struct TileRefs: Codable, Sendable, Equatable {
    /// The pyramid pack (`docs/pack-format.md`): every Deep Zoom level in one
    /// file, served as Deep Zoom and IIIF by `tweetcache serve`.
    public var pack: String?
    /// Caches written before packs: the Deep Zoom descriptor (`.dzi`), tiles
    /// in the `_files` folder beside it.
    public var dzi: String?
    /// Caches written before packs: the IIIF `info.json` of the static tree beside it.
    public var iiif: String?
    public var tileSize: Int
    /// Size of the pack in bytes.
    public var bytes: Int?

    public init(pack: String? = nil, dzi: String? = nil, iiif: String? = nil, tileSize: Int, bytes: Int? = nil) {
        self.pack = pack
        self.dzi = dzi
        self.iiif = iiif
        self.tileSize = tileSize
        self.bytes = bytes
    }

    enum CodingKeys: String, CodingKey {
        case pack, dzi, iiif, bytes
        case tileSize = "tile_size"
    }
}

/// Why a URL has no bytes: `code` is stable for scripts, `message` is for people.
public struct MediaError: Codable, Sendable, Equatable {
    public var code: String
    public var message: String
    public var httpStatus: Int?

    enum CodingKeys: String, CodingKey {
        case code, message
        case httpStatus = "http_status"
    }

    public init(
        code: String,
        message: String,
        httpStatus: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
    }
}

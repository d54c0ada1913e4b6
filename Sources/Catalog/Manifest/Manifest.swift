import Foundation

/// The JSON a run writes: every tweet linked to the cached bytes of its avatar and
/// media, failures included, so a viewer or script never has to re-parse API JSON
/// or guess which file belongs to which tweet.
///
/// Key names are a contract (later tools and users' scripts read them): they are
/// spelled out in `CodingKeys` and described by `docs/manifest.schema.json`.
public struct Manifest: Codable, Sendable, Equatable {
    public static let currentVersion = 1

    public var version: Int = Manifest.currentVersion
    public var generatedAt: Date
    public var tool: String
    public var cacheRoot: String
    public var sources: [Source]
    public var tweets: [ManifestTweet]
    /// Quoted and retweeted tweets, each once; their media belong to them, and the
    /// tweets that embed them say so in `referenced_tweets`.
    public var includedTweets: [ManifestTweet]
    public var failures: [Failure]
    public var summary: RunSummary

    enum CodingKeys: String, CodingKey {
        case version, tool, sources, tweets, failures, summary
        case generatedAt = "generated_at"
        case cacheRoot = "cache_root"
        case includedTweets = "included_tweets"
    }

    /// One input document.
    public struct Source: Codable, Sendable, Equatable {
        public var path: String
        public var formats: [String]
        public var query: String?
        public var tweets: Int
        public var problems: [Problem]
        /// The search the source's pages came from, when a search saved them.
        public var search: SearchRecord?

        public init(
            path: String,
            formats: [String],
            query: String? = nil,
            tweets: Int,
            problems: [Problem],
            search: SearchRecord? = nil
        ) {
            self.path = path
            self.formats = formats
            self.query = query
            self.tweets = tweets
            self.problems = problems
            self.search = search
        }
    }

    /// A part of an input that could not be read; the rest of the input was used.
    public struct Problem: Codable, Sendable, Equatable {
        public var source: String
        public var location: String
        public var message: String

        public init(
            source: String,
            location: String,
            message: String
        ) {
            self.source = source
            self.location = location
            self.message = message
        }
    }

    /// A URL that could not be cached, with the reason.
    public struct Failure: Codable, Sendable, Equatable {
        public var url: String
        public var role: String
        public var error: MediaError

        public init(
            url: String,
            role: String,
            error: MediaError
        ) {
            self.url = url
            self.role = role
            self.error = error
        }
    }

    public init(
        version: Int = Manifest.currentVersion,
        generatedAt: Date,
        tool: String,
        cacheRoot: String,
        sources: [Source],
        tweets: [ManifestTweet],
        includedTweets: [ManifestTweet],
        failures: [Failure],
        summary: RunSummary
    ) {
        self.version = version
        self.generatedAt = generatedAt
        self.tool = tool
        self.cacheRoot = cacheRoot
        self.sources = sources
        self.tweets = tweets
        self.includedTweets = includedTweets
        self.failures = failures
        self.summary = summary
    }
}

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

public struct ManifestTweet: Codable, Sendable, Equatable {
    public var id: String
    public var createdAt: Date?
    public var text: String
    public var lang: String?
    public var author: Author
    public var entities: Entities
    public var media: [Media]
    public var referencedTweets: [Reference]
    public var query: String?
    public var sourceFormat: String
    public var source: String
    /// `x`, `mastodon` or `bluesky` (``TweetModel/Network``); always written, absent
    /// only in manifests from before other networks, which were all X.
    public var network: String? = nil
    /// The post's page where the API gives one (Mastodon, Bluesky).
    public var url: String? = nil
    /// Marked sensitive (X, Mastodon, Bluesky labels); written only when true.
    public var sensitive: Bool? = nil
    /// The content warning (Mastodon `spoiler_text`).
    public var spoilerText: String? = nil

    enum CodingKeys: String, CodingKey {
        case id, text, lang, author, entities, media, query, source, network, url, sensitive
        case createdAt = "created_at"
        case referencedTweets = "referenced_tweets"
        case sourceFormat = "source_format"
        case spoilerText = "spoiler_text"
    }

    public struct Author: Codable, Sendable, Equatable {
        public var id: String
        public var screenName: String
        public var name: String
        public var avatar: MediaRef?

        enum CodingKeys: String, CodingKey {
            case id, name, avatar
            case screenName = "screen_name"
        }

        public init(
            id: String,
            screenName: String,
            name: String,
            avatar: MediaRef? = nil
        ) {
            self.id = id
            self.screenName = screenName
            self.name = name
            self.avatar = avatar
        }
    }

    public struct Media: Codable, Sendable, Equatable {
        public var id: String
        public var type: String
        /// The still image fetched: the original-size photo, or a video's poster.
        public var url: String?
        public var sha256: String?
        public var bytes: Int?
        public var contentType: String?
        public var error: MediaError?
        /// Pixel size of the original: as decoded when thumbnails were made, else as
        /// the API reported it.
        public var width: Int?
        public var height: Int?
        public var altText: String?
        /// The highest-bitrate MP4 of a video or GIF; fetched only with `--videos`.
        public var video: MediaRef?
        public var thumbnails: [ThumbnailRef]?
        public var tiles: TileRefs?
        public var deriveError: String?
        /// What is wrong with an image shown all the same (see ``MediaRef/decodeWarning``).
        public var decodeWarning: String? = nil
        /// The PDQ perceptual hash of the image as displayed (64 hex digits, the reference's
        /// form), its quality (0-100; below 50 too flat to match) and the hashes of the image
        /// turned and mirrored (rotate 90, 180, 270, flip x, flip y, flip +1, flip -1).
        public var pdq: String? = nil
        public var pdqQuality: Int? = nil
        public var pdqDihedral: [String]? = nil

        enum CodingKeys: String, CodingKey {
            case id, type, url, sha256, bytes, error, width, height, video, thumbnails, tiles, pdq
            case contentType = "content_type"
            case altText = "alt_text"
            case deriveError = "derive_error"
            case decodeWarning = "decode_warning"
            case pdqQuality = "pdq_quality"
            case pdqDihedral = "pdq_dihedral"
        }

        public init(
            id: String,
            type: String,
            url: String? = nil,
            sha256: String? = nil,
            bytes: Int? = nil,
            contentType: String? = nil,
            error: MediaError? = nil,
            width: Int? = nil,
            height: Int? = nil,
            altText: String? = nil,
            video: MediaRef? = nil,
            thumbnails: [ThumbnailRef]? = nil,
            tiles: TileRefs? = nil,
            deriveError: String? = nil,
            pdq: String? = nil,
            pdqQuality: Int? = nil,
            pdqDihedral: [String]? = nil
        ) {
            self.pdq = pdq
            self.pdqQuality = pdqQuality
            self.pdqDihedral = pdqDihedral
            self.id = id
            self.type = type
            self.url = url
            self.sha256 = sha256
            self.bytes = bytes
            self.contentType = contentType
            self.error = error
            self.width = width
            self.height = height
            self.altText = altText
            self.video = video
            self.thumbnails = thumbnails
            self.tiles = tiles
            self.deriveError = deriveError
        }
    }

    /// Ranges are half-open offsets in Unicode code points of `text`, as the API gives them.
    public struct Entities: Codable, Sendable, Equatable {
        public var hashtags: [Tag]
        public var cashtags: [Tag]
        public var mentions: [Mention]
        public var urls: [Link]
        public var media: [MediaLink]

        public struct Tag: Codable, Sendable, Equatable {
            public var start, end: Int
            public var tag: String

            public init(start: Int, end: Int, tag: String) {
                self.start = start
                self.end = end
                self.tag = tag
            }
        }
        public struct Mention: Codable, Sendable, Equatable {
            public var start, end: Int
            public var username: String
            public var id: String?

            public init(
                start: Int,
                end: Int,
                username: String,
                id: String? = nil
            ) {
                self.start = start
                self.end = end
                self.username = username
                self.id = id
            }
        }
        public struct Link: Codable, Sendable, Equatable {
            public var start, end: Int
            public var url: String
            public var expandedURL: String?
            public var displayURL: String?
            enum CodingKeys: String, CodingKey {
                case start, end, url
                case expandedURL = "expanded_url"
                case displayURL = "display_url"
            }

            public init(
                start: Int,
                end: Int,
                url: String,
                expandedURL: String? = nil,
                displayURL: String? = nil
            ) {
                self.start = start
                self.end = end
                self.url = url
                self.expandedURL = expandedURL
                self.displayURL = displayURL
            }
        }
        public struct MediaLink: Codable, Sendable, Equatable {
            public var start, end: Int
            public var mediaID: String
            enum CodingKeys: String, CodingKey {
                case start, end
                case mediaID = "media_id"
            }

            public init(
                start: Int,
                end: Int,
                mediaID: String
            ) {
                self.start = start
                self.end = end
                self.mediaID = mediaID
            }
        }

        public init(
            hashtags: [Tag],
            cashtags: [Tag],
            mentions: [Mention],
            urls: [Link],
            media: [MediaLink]
        ) {
            self.hashtags = hashtags
            self.cashtags = cashtags
            self.mentions = mentions
            self.urls = urls
            self.media = media
        }
    }

    public struct Reference: Codable, Sendable, Equatable {
        public var type: String
        public var id: String

        public init(
            type: String,
            id: String
        ) {
            self.type = type
            self.id = id
        }
    }

    public init(
        id: String,
        createdAt: Date? = nil,
        text: String,
        lang: String? = nil,
        author: Author,
        entities: Entities,
        media: [Media],
        referencedTweets: [Reference],
        query: String? = nil,
        sourceFormat: String,
        source: String,
        network: String? = nil,
        url: String? = nil,
        sensitive: Bool? = nil,
        spoilerText: String? = nil
    ) {
        self.id = id
        self.createdAt = createdAt
        self.text = text
        self.lang = lang
        self.author = author
        self.entities = entities
        self.media = media
        self.referencedTweets = referencedTweets
        self.query = query
        self.sourceFormat = sourceFormat
        self.source = source
        self.network = network
        self.url = url
        self.sensitive = sensitive
        self.spoilerText = spoilerText
    }
}

/// Totals of one run, printed by the CLI and stored in the manifest.
public struct RunSummary: Codable, Sendable, Equatable {
    public var tweets: Int = 0
    public var includedTweets: Int = 0
    /// Unique URLs the tweets need.
    public var urls: Int = 0
    /// Already in the cache before this run.
    public var cached: Int = 0
    public var downloaded: Int = 0
    public var failed: Int = 0
    /// Body bytes received this run.
    public var bytesDownloaded: Int = 0
    /// Downloads whose content was already stored under another URL.
    public var deduplicated: Int = 0
    public var failuresByReason: [String: Int] = [:]
    /// Images whose thumbnails or tiles were made this run.
    public var derived: Int = 0
    /// Images whose derivation failed (their reason is in `derive_error`).
    public var deriveFailed: Int = 0
    public var problems: Int = 0
    /// The whole run's wall time.
    public var seconds: Double = 0
    /// Wall time spent with downloads in flight: the rate of `bytesDownloaded` is
    /// measured over this, not over a run whose time went to reading and deriving.
    /// Nil in manifests from before it was kept.
    public var downloadSeconds: Double?
    public var manifestPath: String?
    /// Posts of the input left out because `forget` removed them before (the cache's
    /// tombstone log): an old page fetched again does not bring them back. Nil when none.
    public var forgotten: Int?
    /// What went to object storage, when the run had a `--store`.
    public var store: StoreSummary?

    public init() {}

    enum CodingKeys: String, CodingKey {
        case tweets, urls, cached, downloaded, failed, deduplicated, problems, seconds, derived, forgotten
        case deriveFailed = "derive_failed"
        case downloadSeconds = "download_seconds"
        case includedTweets = "included_tweets"
        case bytesDownloaded = "bytes_downloaded"
        case failuresByReason = "failures_by_reason"
        case manifestPath = "manifest_path"
        case store
    }
}

/// A run's upload to object storage: what was put, what was there already, what
/// failed (each failure is also in the manifest's `failures`, role `store`).
public struct StoreSummary: Codable, Sendable, Equatable {
    /// `s3://bucket/prefix`: never the endpoint's credentials.
    public var location: String
    public var uploaded = 0
    /// Already in the bucket (`412` to `If-None-Match: *`): stored by an earlier run or another machine.
    public var alreadyStored = 0
    public var failed = 0
    public var bytesUploaded = 0
    /// The manifest's key in the bucket; nil when it was not uploaded (something failed).
    public var manifestKey: String?
    /// Originals read from the bucket (their hash checked) instead of downloaded
    /// from their origin, because another machine had stored them; nil in
    /// manifests from before this was counted.
    public var copiedFromStore: Int?
    public var bytesFromStore: Int?
    /// Objects the bucket held under their name with other bytes (damaged, or
    /// replaced behind its back), put back from this machine's verified copy.
    public var replaced: Int?

    public init(location: String) { self.location = location }

    enum CodingKeys: String, CodingKey {
        case location, uploaded, failed, replaced
        case alreadyStored = "already_stored"
        case bytesUploaded = "bytes_uploaded"
        case manifestKey = "manifest_key"
        case copiedFromStore = "copied_from_store"
        case bytesFromStore = "bytes_from_store"
    }
}

import Foundation

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

extension ManifestTweet {
    /// This post's JSON as `JSONEncoder` writes it with `[.sortedKeys, .withoutEscapingSlashes]`
    /// and ISO 8601 dates, with one more member after the post's own when `key` is given:
    /// an object of the `fields` that are not nil, in the order given.
    ///
    /// Why not Foundation's encoder: an API page of 100 posts spent a third of its time
    /// there (and another third decoding them), where this writes the bytes directly,
    /// as the manifest writer does.
    public func compactJSON(adding key: String? = nil, fields: [(name: String, value: String?)] = []) -> [UInt8] {
        var w = ManifestJSONWriter()
        w.compact = true
        w.bytes.reserveCapacity(1024)
        w.write(self)
        if let key {
            w.bytes.removeLast()  // the post's `}`, written again after the added member
            w.bytes.append(UInt8(ascii: ","))
            w.string(key)
            w.colon()
            w.bytes.append(UInt8(ascii: "{"))
            var first = true
            for (name, value) in fields {
                guard let value else { continue }
                if !first { w.bytes.append(UInt8(ascii: ",")) }
                first = false
                w.string(name)
                w.colon()
                w.string(value)
            }
            w.bytes.append(contentsOf: [UInt8(ascii: "}"), UInt8(ascii: "}")])
        }
        return w.bytes
    }
}

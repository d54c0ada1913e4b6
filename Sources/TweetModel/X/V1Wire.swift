// Decodable mirrors of the v1.1 (and premium) JSON. Property names are the JSON keys
// verbatim so these read like the API reference; everything not needed is ignored and
// everything optional in practice is optional here, so only real damage fails a tweet.

/// `search/tweets`: `{"statuses": [...], "search_metadata": {...}}`.
struct V1WireSearchPage: Decodable {
    let statuses: LossyArray<V1WireTweet>
    let search_metadata: Metadata?

    struct Metadata: Decodable {
        let query: String?
        let next_results: String?
    }
}

/// Premium / Enterprise search: `{"results": [...], "next": ..., "requestParameters": {...}}`.
struct V1WirePremiumPage: Decodable {
    let results: LossyArray<V1WireTweet>
    let next: String?
    let requestParameters: Parameters?

    struct Parameters: Decodable {
        let query: String?
    }
}

struct V1WireTweet: Decodable {
    let id_str: String?
    let id: FlexibleID?
    let created_at: String?
    let text: String?
    let full_text: String?
    let lang: String?
    let entities: V1WireEntities?
    let extended_entities: V1WireExtendedEntities?
    let extended_tweet: V1WireExtendedTweet?
    let user: V1WireUser?
    let retweeted_status: Lossy<V1WireTweet>?
    let quoted_status: Lossy<V1WireTweet>?
    let quoted_status_id_str: String?
    let in_reply_to_status_id_str: String?
    /// X's flag for media that may be sensitive; a stranger's page may say anything here.
    let possibly_sensitive: Lossy<Bool>?
}

/// The full text and entities of a tweet served in compatibility mode (`truncated`).
struct V1WireExtendedTweet: Decodable {
    let full_text: String?
    let entities: V1WireEntities?
    let extended_entities: V1WireExtendedEntities?
}

struct V1WireUser: Decodable {
    let id_str: String?
    let id: FlexibleID?
    let screen_name: String?
    let name: String?
    let profile_image_url_https: String?
    let profile_image_url: String?
}

struct V1WireEntities: Decodable {
    let hashtags: LossyArray<V1WireTag>?
    let symbols: LossyArray<V1WireTag>?
    let user_mentions: LossyArray<V1WireMention>?
    let urls: LossyArray<V1WireURL>?
    let media: LossyArray<V1WireMedia>?
}

struct V1WireExtendedEntities: Decodable {
    let media: LossyArray<V1WireMedia>?
}

struct V1WireTag: Decodable {
    let text: String
    let indices: [Int]
}

struct V1WireMention: Decodable {
    let screen_name: String
    let id_str: String?
    let indices: [Int]
}

struct V1WireURL: Decodable {
    let url: String
    let expanded_url: String?
    let display_url: String?
    let indices: [Int]
}

struct V1WireMedia: Decodable {
    let id_str: String?
    let id: FlexibleID?
    let indices: [Int]?
    let type: String?
    let media_url_https: String?
    let media_url: String?
    let ext_alt_text: String?
    let original_info: OriginalInfo?
    let sizes: Sizes?
    let video_info: VideoInfo?

    struct OriginalInfo: Decodable {
        let width: Int?
        let height: Int?
    }

    struct Sizes: Decodable {
        let large: Size?
    }

    struct Size: Decodable {
        let w: Int?
        let h: Int?
    }

    struct VideoInfo: Decodable {
        let variants: LossyArray<Variant>?
    }

    struct Variant: Decodable {
        let bitrate: Int?
        let content_type: String?
        let url: String?
    }
}

// Decodable mirrors of the v2 JSON, keys verbatim (see V1Wire.swift for the approach).

/// `tweets/search/recent` and `all`: `{"data": [...], "includes": {...}, "meta": {...}}`.
struct V2WireSearchPage: Decodable {
    let data: LossyArray<V2WireTweet>?
    let includes: V2WireIncludes?
    let meta: Meta?
    let errors: LossyArray<V2WireError>?
    let __twarc: Twarc?

    struct Meta: Decodable {
        let next_token: String?
    }

    /// The provenance twarc adds to every page it saves; its URL holds the query.
    struct Twarc: Decodable {
        let url: String?
    }
}

/// `tweets/:id`: `{"data": {...}, "includes": {...}}`.
struct V2WireSingle: Decodable {
    let data: Lossy<V2WireTweet>
    let includes: V2WireIncludes?
    let errors: LossyArray<V2WireError>?
}

struct V2WireIncludes: Decodable {
    let media: LossyArray<V2WireMedia>?
    let users: LossyArray<V2WireUser>?
    let tweets: LossyArray<V2WireTweet>?
}

struct V2WireTweet: Decodable {
    let id: String
    let text: String
    let created_at: String?
    let author_id: String?
    let lang: String?
    let attachments: Attachments?
    let entities: V2WireEntities?
    let referenced_tweets: LossyArray<Reference>?
    let note_tweet: NoteTweet?
    /// X's flag for media that may be sensitive; a stranger's page may say anything here.
    let possibly_sensitive: Lossy<Bool>?
    /// twarc's "flattened" output inlines the expansions into each tweet.
    let author: V2WireUser?

    struct Attachments: Decodable {
        let media_keys: [String]?
        /// Inlined media, again from twarc's flattened output.
        let media: LossyArray<V2WireMedia>?
    }

    struct Reference: Decodable {
        let type: String
        let id: String
    }

    /// The full text of a long post; `text` then holds only its first 280 characters.
    struct NoteTweet: Decodable {
        let text: String
        let entities: V2WireEntities?
    }
}

struct V2WireEntities: Decodable {
    let hashtags: LossyArray<Tag>?
    let cashtags: LossyArray<Tag>?
    let mentions: LossyArray<Mention>?
    let urls: LossyArray<Link>?

    struct Tag: Decodable {
        let start: Int
        let end: Int
        let tag: String
    }

    struct Mention: Decodable {
        let start: Int
        let end: Int
        let username: String
        let id: String?
    }

    struct Link: Decodable {
        let start: Int
        let end: Int
        let url: String
        let expanded_url: String?
        let display_url: String?
    }
}

struct V2WireMedia: Decodable {
    let media_key: String
    let type: String
    let url: String?
    let preview_image_url: String?
    let width: Int?
    let height: Int?
    let alt_text: String?
    let variants: LossyArray<Variant>?

    struct Variant: Decodable {
        let bit_rate: Int?
        let content_type: String?
        let url: String?
    }
}

struct V2WireUser: Decodable {
    let id: String
    let username: String?
    let name: String?
    let profile_image_url: String?
}

/// A partial error reported beside the results (suspended author, deleted tweet, …),
/// or the whole response when a request failed.
struct V2WireError: Decodable {
    let title: String?
    let detail: String?
    let message: String?
    let code: Int?
    let resource_id: String?
}

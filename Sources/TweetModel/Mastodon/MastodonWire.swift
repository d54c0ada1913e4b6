/// Mastodon REST API v1/v2 shapes, as served (snake_case, ids as strings). Only what
/// the model keeps; every field optional so one odd status costs only itself.
struct MastodonWireStatus: Decodable {
    let id: FlexibleID?
    let created_at: String?
    let url: String?
    let uri: String?
    let content: String?
    let language: String?
    let sensitive: Bool?
    let spoiler_text: String?
    let account: MastodonWireAccount?
    let media_attachments: LossyArray<MastodonWireAttachment>?
    let tags: LossyArray<MastodonWireTag>?
    let mentions: LossyArray<MastodonWireMention>?
    let reblog: Lossy<MastodonWireStatus>?
    let in_reply_to_id: FlexibleID?
    /// Mastodon 4.4+ quotes: `{"state": "accepted", "quoted_status": {...}}`.
    let quote: MastodonWireQuote?
}

struct MastodonWireQuote: Decodable {
    let quoted_status: Lossy<MastodonWireStatus>?
}

struct MastodonWireAccount: Decodable {
    let id: FlexibleID?
    let acct: String?
    let username: String?
    let display_name: String?
    let url: String?
    let avatar: String?
    let avatar_static: String?
}

struct MastodonWireAttachment: Decodable {
    let id: FlexibleID?
    let type: String?
    let url: String?
    let preview_url: String?
    let remote_url: String?
    let description: String?
    let meta: MastodonWireMeta?
}

struct MastodonWireMeta: Decodable {
    let original: MastodonWireSize?
}

struct MastodonWireSize: Decodable {
    let width: Int?
    let height: Int?
}

struct MastodonWireTag: Decodable {
    let name: String?
    let url: String?
}

struct MastodonWireMention: Decodable {
    let id: FlexibleID?
    let acct: String?
    let username: String?
    let url: String?
}

/// `/api/v2/search`: `{"accounts": [...], "statuses": [...], "hashtags": [...]}`.
struct MastodonWireSearch: Decodable {
    let statuses: LossyArray<MastodonWireStatus>
}

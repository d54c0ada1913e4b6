/// Which kind of saved API response a document turned out to be.
///
/// Detected from the content, never declared by the user: tools save the same
/// tweets in many shapes and file names say nothing reliable.
public enum SourceFormat: String, Sendable, Codable, Hashable, CaseIterable {
    /// v1.1 `search/tweets`: `{"statuses": [...], "search_metadata": {...}}`.
    case v1Search
    /// v2 `tweets/search/recent` or `all`: `{"data": [...], "includes": {...}, "meta": {...}}`.
    case v2Search
    /// Premium / Enterprise search: `{"results": [...], "next": ...}` of v1.1 tweets.
    case premiumSearch
    /// A bare JSON array of v1.1 tweets, as timeline endpoints return.
    case v1Timeline
    /// A single v1.1 tweet object.
    case v1Tweet
    /// A single v2 tweet: `{"data": {...}, "includes": {...}}` or the bare tweet object.
    case v2Tweet
}

extension SourceFormat {
    /// How messages name the format.
    var displayName: String {
        switch self {
        case .v1Search: "v1.1 search page"
        case .v2Search: "v2 search page"
        case .premiumSearch: "premium search page"
        case .v1Timeline: "array of v1.1 tweets"
        case .v1Tweet: "v1.1 tweet"
        case .v2Tweet: "v2 tweet"
        }
    }
}

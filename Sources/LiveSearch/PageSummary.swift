import Foundation

/// What paging needs from one results page: how many tweets it holds and how to ask
/// for the next one. The pipeline parses the tweets themselves later, from the saved page.
enum PageSummary: Sendable, Equatable {
    case page(tweets: Int, next: PageCursor?)
    /// Not a results page of the expected API; the reason is for the user.
    case malformed(String)

    static func read(_ body: [UInt8], api: SearchAPI) -> PageSummary {
        guard !body.isEmpty else { return .malformed("the page is empty") }
        let decoder = JSONDecoder()
        switch api {
        case .v2:
            do {
                let page = try decoder.decode(V2Page.self, from: Data(body))
                guard page.data != nil || page.meta != nil else {
                    return .malformed("the page has neither data nor meta"
                        + (page.errors.map { "; errors: \($0.count)" } ?? ""))
                }
                let next = page.meta?.next_token.flatMap { $0.isEmpty ? nil : PageCursor.nextToken($0) }
                return .page(tweets: page.data?.count ?? 0, next: next)
            } catch {
                return .malformed(describe(error))
            }
        case .mastodon:
            // A timeline is an array of statuses, `/api/v2/search` an object holding one.
            let statuses: [MastodonStatus]
            if let list = try? decoder.decode([MastodonStatus].self, from: Data(body)) {
                statuses = list
            } else {
                do { statuses = try decoder.decode(MastodonSearch.self, from: Data(body)).statuses } catch {
                    return .malformed(describe(error))
                }
            }
            // Newest first; `max_id` is exclusive, so the next page starts below the last id.
            let next = statuses.last?.id.flatMap { $0.isEmpty || $0.utf8.count > 64 ? nil : PageCursor.olderThan($0) }
            return .page(tweets: statuses.count, next: next)
        case .bluesky:
            do {
                let page = try decoder.decode(BlueskyPage.self, from: Data(body))
                let next = page.cursor.flatMap { $0.isEmpty ? nil : PageCursor.nextToken($0) }
                return .page(tweets: page.posts.count, next: page.posts.isEmpty ? nil : next)
            } catch {
                return .malformed(describe(error))
            }
        case .v1_1:
            do {
                let page = try decoder.decode(V1Page.self, from: Data(body))
                // The lowest id on the page, from id_str (or id): the next page ends just below it.
                let lowest = page.statuses.compactMap(\.id).min()
                let hasMore = page.search_metadata.map { $0.next_results?.isEmpty == false } ?? true
                let next = hasMore ? lowest?.predecessor().map(PageCursor.maxID) : nil
                return .page(tweets: page.statuses.count, next: next)
            } catch {
                return .malformed(describe(error))
            }
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty:
            "the page is not valid JSON"
        case let DecodingError.keyNotFound(key, context):
            "the page has no '\(path(context.codingPath + [key]))'"
        case let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context):
            "'\(path(context.codingPath))' has the wrong type"
        case let DecodingError.dataCorrupted(context):
            "'\(path(context.codingPath))' is malformed"
        default:
            "the page could not be read"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(in: ["."])
    }

    /// Any JSON value, skipped: only the count of results matters here.
    private struct Skipped: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    private struct V2Page: Decodable {
        let data: [Skipped]?
        let meta: Meta?
        let errors: [Skipped]?

        struct Meta: Decodable {
            let next_token: String?
        }
    }

    private struct MastodonSearch: Decodable {
        let statuses: [MastodonStatus]
    }

    /// A status's id as given (a string), read leniently.
    private struct MastodonStatus: Decodable {
        let id: String?
        enum Keys: String, CodingKey { case id }
        init(from decoder: any Decoder) throws {
            id = try? decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .id)
        }
    }

    private struct BlueskyPage: Decodable {
        let posts: [Skipped]
        let cursor: String?
    }

    private struct V1Page: Decodable {
        let statuses: [Status]
        let search_metadata: Metadata?

        struct Metadata: Decodable {
            let next_results: String?
        }

        /// A status's id, read leniently: a broken status must not hide the others' ids.
        struct Status: Decodable {
            let id: DecimalID?

            enum Keys: String, CodingKey { case id, id_str }

            init(from decoder: any Decoder) throws {
                guard let c = try? decoder.container(keyedBy: Keys.self) else { id = nil; return }
                if let text = try? c.decode(String.self, forKey: .id_str), let id = DecimalID(text) {
                    self.id = id
                } else if let text = try? c.decode(String.self, forKey: .id), let id = DecimalID(text) {
                    // Mastodon's ids are decimal strings under "id".
                    self.id = id
                } else if let number = try? c.decode(UInt64.self, forKey: .id) {
                    self.id = DecimalID(String(number))
                } else {
                    id = nil
                }
            }
        }
    }
}

/// Where the next page starts.
enum PageCursor: Sendable, Hashable {
    /// v2: `next_token` from the previous page's meta; Bluesky: its `cursor`.
    case nextToken(String)
    /// v1.1: `max_id`, the lowest id seen minus one; Mastodon: the lowest id seen
    /// (its `max_id` is exclusive).
    case maxID(DecimalID)
    /// Mastodon: the id of the page's last (oldest) status, as given. Mastodon's ids are
    /// numbers, but GoToSocial's are ULIDs and Pleroma's flake ids: opaque strings that
    /// sort by time, which `max_id` takes as they are.
    case olderThan(String)
}

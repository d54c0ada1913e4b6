import Foundation

/// The searches run against a cache, most recent first, in `<cache>/history.json`.
///
/// Kept so a search can be found and run again (`tweetcache history`, issue 5) without
/// remembering its exact query. A repeated search moves to the top instead of piling
/// up, and only the last ``limit`` are kept. Every write replaces the whole file
/// atomically, so a crash or a second search finishing at the same moment leaves one
/// complete file (the last writer's), never a torn one. It never holds a token: there
/// is no field that could carry one.
public struct SearchHistory: Sendable {
    public struct Entry: Sendable, Codable, Hashable {
        /// As the user typed it (`#ucd`, `@name`), not the API query.
        public var query: String
        /// The ``SearchAPI`` asked (`v2`, `v1.1`, `mastodon`, `bluesky`), or ``filesAPI``.
        public var api: String
        public var at: Date
        public var pages: Int
        public var tweets: Int
        /// Absolute paths of the result files to read again (`fetch --again N`): the
        /// saved pages of a search, the inputs of a `fetch`. Absent in files written
        /// before it existed, which still load.
        public var files: [String]?

        /// The ``api`` of an entry recorded by `tweetcache fetch` (its query names the files).
        public static let filesAPI = "files"

        public init(query: String, api: String, at: Date, pages: Int, tweets: Int, files: [String]? = nil) {
            self.query = query
            self.api = api
            self.at = at
            self.pages = pages
            self.tweets = tweets
            self.files = files
        }

        /// The network searched (`x`, `mastodon`, `bluesky`), or `files` for a `fetch`
        /// of saved results: what the viewer's history shows. Unknown text is X's, as
        /// the first histories (before other networks) hold only `v2` and `v1.1`.
        public var network: String {
            if api == Self.filesAPI { return Self.filesAPI }
            return (SearchAPI(rawValue: api)?.network ?? .x).rawValue
        }

        /// Two entries are the same search when query and API match.
        func isSameSearch(as other: Entry) -> Bool { query == other.query && api == other.api }
    }

    private struct File: Codable {
        var searches: [Entry]
    }

    public static let limit = 100

    /// Removes the history (`tweetcache history --clear`); no file is not an error.
    public func clear() throws(LiveSearchError) {
        do {
            if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
        } catch {
            throw .history(path: url.path, reason: (error as NSError).localizedDescription)
        }
    }
    public let url: URL

    public init(url: URL) { self.url = url }

    /// `<cacheRoot>/history.json`
    public init(cacheRoot: URL) { self.init(url: cacheRoot.appendingPathComponent("history.json")) }

    /// The searches in a history file's bytes, most recent first; for readers that open
    /// the file their own way (the tile server reads only inside its cache).
    public static func entries(in data: Data) throws(LiveSearchError) -> [Entry] {
        do { return try decoder.decode(File.self, from: data).searches } catch {
            throw .history(path: "history.json", reason: "it is not a search history file (damaged?)")
        }
    }

    /// The searches, most recent first; none when the file does not exist yet.
    public func entries() throws(LiveSearchError) -> [Entry] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        do {
            let data = try Data(contentsOf: url)
            guard data.count <= 4 << 20 else { throw LiveSearchError.history(path: url.path, reason: "the file is over 4 MB") }
            return try Self.decoder.decode(File.self, from: data).searches
        } catch let error as LiveSearchError {
            throw error
        } catch is DecodingError {
            throw .history(path: url.path, reason: "it is not a search history file (damaged?)")
        } catch {
            throw .history(path: url.path, reason: (error as NSError).localizedDescription)
        }
    }

    /// Records a finished search, the one place any front end (the CLI, a
    /// server) adds to the history: only a search that saved pages is worth
    /// running again, so one that saved none is not recorded.
    @discardableResult
    public func record(_ outcome: SearchOutcome, of client: SearchClient, started: Date) throws(LiveSearchError) -> [Entry] {
        guard !outcome.pages.isEmpty else { return (try? entries()) ?? [] }
        return try record(Entry(
            query: client.query.text, api: client.options.api.rawValue, at: started,
            pages: outcome.pages.count, tweets: outcome.tweets, files: outcome.pages.map(\.file.path)))
    }

    /// Puts `entry` at the top, dropping an older run of the same search and anything
    /// past ``limit``. An unreadable file is kept beside the new one as
    /// `history.json.damaged` rather than lost or allowed to block every later search.
    @discardableResult
    public func record(_ entry: Entry) throws(LiveSearchError) -> [Entry] {
        var list: [Entry]
        do {
            list = try entries()
        } catch {
            let aside = url.appendingPathExtension("damaged")
            try? FileManager.default.removeItem(at: aside)
            try? FileManager.default.moveItem(at: url, to: aside)
            list = []
        }
        list.removeAll { $0.isSameSearch(as: entry) }
        list.insert(entry, at: 0)
        if list.count > Self.limit { list.removeLast(list.count - Self.limit) }
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Self.encoder.encode(File(searches: list)).write(to: url, options: .atomic)
        } catch {
            throw .history(path: url.path, reason: (error as NSError).localizedDescription)
        }
        return list
    }

    private static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .iso8601
        return e
    }

    private static var decoder: JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return d
    }
}

import Foundation
import LiveSearch
import TweetModel

/// `tweetcache history` and `fetch --again N`: the searches and result files run
/// against a cache, most recent first, numbered from 1 as printed.
public struct HistoryList: Sendable {
    public struct Row: Sendable, Codable, Equatable {
        public var number: Int
        public var query: String
        public var api: String
        public var at: Date
        public var pages: Int
        public var tweets: Int
        public var files: [String]?
    }

    public let history: SearchHistory
    public var entries: [SearchHistory.Entry]

    public init(cacheRoot: URL) throws(InspectError) {
        history = SearchHistory(cacheRoot: cacheRoot)
        do { entries = try history.entries() } catch { throw .cache(error.description) }
    }

    public var rows: [Row] {
        entries.enumerated().map { i, e in
            Row(number: i + 1, query: e.query, api: e.api, at: e.at, pages: e.pages, tweets: e.tweets, files: e.files)
        }
    }

    public func text(now: Date, style: Style) -> String {
        rows.map { row in
            let what = row.api == SearchHistory.Entry.filesAPI ? "fetch" : "search \(row.api)"
            return "\(String(row.number).leftPadded(to: 3))  \(style.paint(RelativeTime.string(from: row.at, now: now).padding(toLength: 7, withPad: " ", startingAt: 0), .dim))  \(what.padding(toLength: 11, withPad: " ", startingAt: 0))  \(TweetList.oneLine(row.query))  "
                + style.paint("(\(row.tweets) tweets, \(row.pages) \(row.api == SearchHistory.Entry.filesAPI ? "file" : "page")\(row.pages == 1 ? "" : "s"))", .dim)
        }.map { $0 + "\n" }.joined()
    }

    /// The result files entry `number` (1-based) read, to fetch again: the recorded
    /// paths, else a search's pages found by the names `search` saves them under.
    public func replayFiles(number: Int, cacheRoot: URL) throws(InspectError) -> [String] {
        guard number >= 1, number <= entries.count else {
            throw .invalid("no history entry \(number) (there \(entries.count == 1 ? "is" : "are") \(entries.count); see `tweetcache history`)")
        }
        let entry = entries[number - 1]
        let fm = FileManager.default
        if let files = entry.files, !files.isEmpty {
            let missing = files.filter { !fm.fileExists(atPath: $0) }
            if missing.isEmpty { return files }
            if entry.api == SearchHistory.Entry.filesAPI {
                throw .notFound("entry \(number) read files that are gone: \(missing.joined(separator: ", "))")
            }
        }
        if entry.api != SearchHistory.Entry.filesAPI, let query = try? SearchQuery(entry.query) {
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "UTC")
            f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
            let stem = "\(f.string(from: entry.at))-\(entry.api)-\(query.slug)"
            let results = cacheRoot.appendingPathComponent("results")
            let pages = ((try? fm.contentsOfDirectory(atPath: results.path)) ?? [])
                .filter { $0.hasPrefix(stem + "-p") && $0.hasSuffix(".json") }
                .sorted { Self.pageNumber($0) < Self.pageNumber($1) }
            if !pages.isEmpty { return pages.map { results.appendingPathComponent($0).path } }
        }
        let quoted = "'" + entry.query.replacingOccurrences(of: "'", with: "'\\''") + "'"
        throw .notFound("the pages of search \(number) (\(entry.query)) are not saved in this cache; "
            + "run it again with: tweetcache search \(quoted) --api \(entry.api)")
    }

    static func pageNumber(_ name: String) -> Int {
        guard let p = name.range(of: "-p", options: .backwards) else { return 0 }
        return Int(name[p.upperBound...].dropLast(5)) ?? 0
    }
}

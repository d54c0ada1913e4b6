import Foundation
internal import GRDB

/// Gathers a run's posts with photos into the pages of `run_pages` as ingest reads
/// them: a page per ``PostCatalog/runPageSize`` posts of one result file, written with
/// the batch that fills it. A run's result files usually come one after another, but
/// nothing says so: at most ``openLimit`` files have a page open at once, and the one
/// added to longest ago is written short when another opens. Memory stays a few
/// pages' ranges (12 bytes a post) whatever the run's size.
struct RunPagesWriter {
    let run: Int64
    /// Each source path's index: the first of the run's `sources` with that path.
    private let sources: [String: Int]
    private var open: [Int: Page] = [:]
    private var written: [Int: Int] = [:]
    private var ready: [(source: Int, page: Int, posts: Int, ranges: [UInt8])] = []
    private var tick = 0

    private struct Page {
        var ranges: [UInt8] = []
        var posts = 0
        var touched = 0
    }

    static let openLimit = 64

    init(run: Int64, sources: [String]) {
        self.run = run
        var first: [String: Int] = [:]
        for (index, path) in sources.enumerated() where first[path] == nil { first[path] = index }
        self.sources = first
    }

    /// A post of the run's `tweets`, at `range` of its manifest.
    mutating func add(_ post: PostRow, at range: Range<Int>) {
        guard post.photos > 0, let path = post.source, let source = sources[path] else { return }
        if open[source] == nil, open.count >= Self.openLimit,
           let oldest = open.min(by: { $0.value.touched < $1.value.touched })?.key {
            close(oldest)
        }
        tick += 1
        // Taken out of the dictionary, not copied: a copy shares the ranges' buffer, so
        // each append copied the page's ranges so far (up to 6 KB a post with photos).
        var page = open.removeValue(forKey: source) ?? Page()
        Self.append(range, to: &page.ranges)
        page.posts += 1
        page.touched = tick
        open[source] = page
        if page.posts == PostCatalog.runPageSize { close(source) }
    }

    /// `ranges` as `run_pages.ranges` holds them.
    static func pack(_ ranges: [Range<Int>]) -> [UInt8] {
        var packed: [UInt8] = []
        packed.reserveCapacity(12 * ranges.count)
        for range in ranges { append(range, to: &packed) }
        return packed
    }

    private static func append(_ range: Range<Int>, to packed: inout [UInt8]) {
        withUnsafeBytes(of: UInt64(range.lowerBound).littleEndian) { packed += $0 }
        withUnsafeBytes(of: UInt32(clamping: range.count).littleEndian) { packed += $0 }
    }

    private mutating func close(_ source: Int) {
        guard let page = open.removeValue(forKey: source) else { return }
        let number = written[source, default: 0]
        written[source] = number + 1
        ready.append((source, number, page.posts, page.ranges))
    }

    /// Writes the pages filled so far.
    mutating func flush(_ db: Database) throws {
        guard !ready.isEmpty else { return }
        let insert = try db.cachedStatement(sql: "INSERT INTO run_pages(run, source, page, posts, ranges) VALUES (?, ?, ?, ?, ?)")
        for page in ready {
            try insert.execute(arguments: [run, page.source, page.page, page.posts, Data(page.ranges)])
        }
        ready.removeAll()
    }

    /// Writes every page, the open ones too: at the run's end.
    mutating func finish(_ db: Database) throws {
        for source in open.keys.sorted() { close(source) }
        try flush(db)
    }
}

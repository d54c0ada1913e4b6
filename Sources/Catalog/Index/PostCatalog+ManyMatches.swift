import Dispatch
internal import GRDB
internal import Synchronization

extension PostCatalog {
    /// The first page and the count of words in more than ``manyMatches`` posts, on
    /// two readers at once.
    ///
    /// For such words the count is most of a first page: at a million posts, a common
    /// word and a letter being typed (`ul m`, 674,459 posts) take FTS5 53 ms to count
    /// and 17 ms to page, one after the other. FTS5 counts a range of rowids as fast
    /// as it seeks (`rowid BETWEEN`), so the count is cut into ``countSlices`` slices
    /// that two readers share: one counts a slice first, which gives the page's plan
    /// the density it needs (``wordsPage(_:after:offset:limit:oldestFirst:few:many:_:)``),
    /// makes the page, then joins the other in counting the slices left (a last word
    /// longer than the prefix indexes' is counted whole, beside the page). Each slice is
    /// its own read, so the total is that of the moments its slices were counted: a
    /// run written meanwhile may be half in it, as it would be a moment later.
    func firstPageOfManyMatches(_ filter: PostFilter, words fts: String, limit: Int)
        throws(CatalogError) -> (posts: [ManifestTweet], total: Int)
    {
        let top = try read("list posts") { db in try Int64.fetchOne(db, sql: "SELECT coalesce(max(rowid), 0) FROM posts") ?? 0 }
        guard top > 0 else { return ([], 0) }
        // A last word longer than the prefix indexes' is gathered from every term it
        // begins, again for each slice: such words are counted whole, beside the page,
        // whose plan then does not depend on the count.
        let sliced = Self.cheapToProbe(fts)
        let slices = sliced ? Self.countSlices : 1
        let width = top / Int64(slices) + 1
        // The newest slice is the page maker's, first; the others are taken in turn.
        let next = Atomic<Int>(0)
        let counted = Atomic<Int>(0)
        let outcome = Mutex<(posts: [ManifestTweet]?, failure: CatalogError?)>((nil, nil))
        @Sendable func count(_ slice: Int, _ db: Database) throws -> Int {
            let low = Int64(slice) * width
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM posts_fts WHERE posts_fts MATCH ? AND rowid BETWEEN ? AND ?",
                                         arguments: [fts, low, low + width - 1]) ?? 0
            counted.add(count, ordering: .relaxed)
            return count
        }
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            do {
                if worker == 0 {
                    let posts = try read("list posts") { db in
                        // The density of the newest posts: what a page, newest first, meets.
                        let estimate = sliced ? max(manyMatches + 2, try count(slices - 1, db) * slices) : nil
                        return try loadPosts(try wordsPage(filter, after: nil, limit: limit, oldestFirst: false, few: nil,
                                                           many: estimate, db), db)
                    }
                    outcome.withLock { $0.posts = posts }
                }
                try read("count matches") { db in
                    while true {
                        let slice = next.add(1, ordering: .relaxed).oldValue
                        guard slice < (sliced ? slices - 1 : 1), outcome.withLock({ $0.failure == nil }) else { return }
                        _ = try count(slice, db)
                    }
                }
            } catch {
                let failure = error as? CatalogError ?? .database(operation: "count matches", message: String(describing: error))
                outcome.withLock { if $0.failure == nil { $0.failure = failure } }
            }
        }
        let (posts, failure) = outcome.withLock { $0 }
        if let failure { throw failure }
        let total = counted.load(ordering: .relaxed)
        remember(fts, count: total)
        return (posts ?? [], total)
    }

    /// Slices of the rowids a count of many matches is cut into: enough that two
    /// readers finish together, few enough that each slice's seeks (one per term
    /// and segment) stay small.
    static let countSlices = 8
}

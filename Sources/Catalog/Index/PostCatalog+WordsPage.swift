internal import GRDB

extension PostCatalog {
    /// Where a walk of the posts in list order is: the last post's sort key as the
    /// catalog holds it (``PostOrder``'s two columns).
    struct OrderPosition {
        var created: Double
        var idOrder: String

        init(created: Double, idOrder: String) {
            self.created = created
            self.idOrder = idOrder
        }

        init(_ key: PostKey) {
            self.init(created: PostOrder.created(key.createdAt), idOrder: PostOrder.idKey(key.id))
        }
    }

    /// The rows (`id`, `run`, `offset`, `length`) of a page of the posts holding
    /// `filter`'s words, with nothing else asked (``wordsAlone(_:)``), in list order (or its reverse), after
    /// `key`, skipping `offset`.
    ///
    /// Two ways to a page, and the cheaper is tried first, with a budget:
    /// - `few`, every match (at most ``manyMatches``, one pass of the index): the posts
    ///   are walked in order, each kept when it is among them, when the page should
    ///   come after a walk shorter than the matches are many (at a million posts, two
    ///   words in 13,473 posts: about 7,400 posts walked for a page of 100, where looking
    ///   every match up to sort them took 30 ms). Matches that are all old would make the
    ///   walk long: past its budget, the matches are looked up and sorted.
    /// - Many matches (`many` of them, when counted): the posts are walked in order and each asked of the index
    ///   (``cheapToProbe(_:)``: words it finds by a seek), which for a word in most
    ///   posts is a few hundred questions (one word in 875,091 of a million posts: 1 ms,
    ///   where making the set of its matches took 140 ms). Past the budget, or for
    ///   words the index must gather from many terms for each question (a long last
    ///   word, which is a prefix), the walk goes on through the set of matches.
    func wordsPage(_ filter: PostFilter, after key: PostKey?, offset: Int = 0, limit: Int, oldestFirst: Bool,
                   few: [Int64]?, many: Int? = nil, _ db: Database) throws -> [Row]
    {
        guard let fts = Self.wordsAlone(filter) else { preconditionFailure("words and more") }
        let offset = max(0, offset)
        let (sum, overflow) = offset.addingReportingOverflow(limit)
        let need = overflow ? Int.max : sum
        guard limit > 0 else { return [] }
        var position = key.map(OrderPosition.init)
        if let few {
            guard !few.isEmpty else { return [] }
            let posts = try Int.fetchOne(db, sql: "SELECT coalesce(max(rowid), 0) FROM posts") ?? 0
            let expected = Self.walk(need, in: posts, matches: few.count)
            if expected <= Self.walkPerMatch * few.count {
                let matches = Set(few)
                let walk = try walkInOrder(from: position, oldestFirst: oldestFirst, need: need, budget: 3 * expected + walkBudget,
                                           probing: nil, keep: matches.contains, db)
                if walk.complete { return try rows(Array(walk.kept.dropFirst(offset)), db) }
            }
            // Few, or old: every match looked up and sorted.
            guard let query = Self.select("p.id, p.run, p.offset, p.length", filter, after: key,
                                          oldestFirst: oldestFirst, wordsDrive: true, matches: few)
            else { return [] }
            return try Row.fetchAll(db, sql: query.sql + query.order + " LIMIT ? OFFSET ?",
                                    arguments: StatementArguments(query.arguments + [limit, offset]))
        }
        var kept: [Int64] = []
        // Asked post by post when the page should come within half the budget (for a
        // number of matches known, `many`), or with it unknown, until the budget is spent.
        let posts = try many == nil ? 0 : Int.fetchOne(db, sql: "SELECT coalesce(max(rowid), 0) FROM posts") ?? 0
        let dense = many.map { Self.walk(need, in: posts, matches: $0) <= walkBudget / 4 } ?? true
        if dense && Self.cheapToProbe(fts) {
            let walk = try walkInOrder(from: position, oldestFirst: oldestFirst, need: need, budget: walkBudget / 2,
                                       probing: fts, keep: { _ in true }, db)
            if walk.complete { return try rows(Array(walk.kept.dropFirst(offset)), db) }
            kept = walk.kept
            position = walk.stoppedAt ?? position
        }
        // The set of matches, made once by SQLite, and the posts walked in order through it.
        // `+p.rowid`: never the set as the lead, whatever statistics SQLite has.
        var sql = "SELECT p.rowid FROM posts p WHERE p.included = 0 AND +p.rowid IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?)"
        var arguments: [DatabaseValueConvertible?] = [fts]
        if let position {
            sql += " AND (p.created, p.id_order) \(oldestFirst ? ">" : "<") (?, ?)"
            arguments += [position.created, position.idOrder]
        }
        let direction = oldestFirst ? "" : " DESC"
        sql += " ORDER BY p.created\(direction), p.id_order\(direction) LIMIT ?"
        arguments.append(need - kept.count)
        kept += try Int64.fetchAll(db, sql: sql, arguments: StatementArguments(arguments))
        return try rows(Array(kept.dropFirst(offset)), db)
    }

    /// How many posts a walk in order should look at to find `need` of `matches` among
    /// `posts`, if the matches are spread evenly (`Int.max` past any real number).
    static func walk(_ need: Int, in posts: Int, matches: Int) -> Int {
        let (product, overflow) = need.multipliedReportingOverflow(by: max(posts, matches))
        return overflow ? .max : product / max(1, matches)
    }

    /// A walk in order looks at most this many posts per match before the matches are
    /// sorted instead (each looked up: a few times a post's cost in the walk).
    static let walkPerMatch = 4
    /// ``walkBudget``: a walk through every match looks at 3 times the posts it expects
    /// and this many more; a walk that asks the full-text index of each post (about 20
    /// µs each) half as many in all.
    static let defaultWalkBudget = 2_048

    /// Whether FTS5 answers "is this post among the matches of `fts`" by seeks: every
    /// word but the last is a term, and the last, a prefix, is one of the prefix
    /// indexes' (one to three letters, ``fullTextTable``). A longer prefix is gathered
    /// from every term it begins, at every question (at a million posts, 30 ms each for
    /// one in 77,077 posts).
    static func cheapToProbe(_ fts: String) -> Bool {
        guard fts.hasSuffix("\"*"), let open = fts.dropLast(2).lastIndex(of: "\"") else { return false }
        let last = fts[fts.index(after: open)..<fts.index(fts.endIndex, offsetBy: -2)]
        return last.utf8.allSatisfy { $0 < 0x80 } && (1...3).contains(last.utf8.count)
    }

    /// Walks the posts in list order after `position`, a chunk at a time, keeping
    /// those `keep` says (or, `probing`, those among that query's matches), until
    /// `need` are kept (`complete`), the list ends (`complete`) or `budget` posts were
    /// looked at (`stoppedAt` the last).
    private func walkInOrder(from position: OrderPosition?, oldestFirst: Bool, need: Int, budget: Int, probing fts: String?,
                             keep: (Int64) -> Bool, _ db: Database) throws
        -> (kept: [Int64], complete: Bool, stoppedAt: OrderPosition?)
    {
        let direction = oldestFirst ? "" : " DESC"
        let probe = fts == nil ? "1" : "EXISTS (SELECT 1 FROM posts_fts f WHERE posts_fts MATCH ? AND f.rowid = p.rowid)"
        let head = "SELECT p.rowid, p.created, p.id_order, \(probe) FROM posts p WHERE p.included = 0"
        let tail = " ORDER BY p.created\(direction), p.id_order\(direction) LIMIT ?"
        var position = position
        var kept: [Int64] = []
        var looked = 0
        while kept.count < need {
            guard looked < budget else { return (kept, false, position) }
            // Probes cost: a chunk about twice what is still missing; plain looks are cheap.
            let missing = need - kept.count
            let chunk = min(budget - looked, fts == nil ? 4_096 : max(64, missing > budget ? budget : 2 * missing))
            var arguments: [DatabaseValueConvertible?] = fts.map { [$0] } ?? []
            var sql = head
            if let position {
                sql += " AND (p.created, p.id_order) \(oldestFirst ? ">" : "<") (?, ?)"
                arguments += [position.created, position.idOrder]
            }
            arguments.append(chunk)
            let rows = try Row.fetchAll(db, sql: sql + tail, arguments: StatementArguments(arguments))
            for row in rows {
                let rowid: Int64 = row[0]
                if row[3] as Bool, keep(rowid) {
                    kept.append(rowid)
                    if kept.count == need { break }
                }
            }
            looked += rows.count
            guard let last = rows.last, rows.count == chunk else { return (kept, true, nil) }
            position = OrderPosition(created: last[1], idOrder: last[2])
        }
        return (kept, true, nil)
    }

    /// The rows of the posts `rowids`, in that order.
    private func rows(_ rowids: [Int64], _ db: Database) throws -> [Row] {
        guard !rowids.isEmpty else { return [] }
        // The list leads (`CROSS JOIN`) and keeps its order (`m.key`, the list's index).
        return try Row.fetchAll(
            db, sql: "SELECT p.id, p.run, p.offset, p.length FROM json_each(?) m CROSS JOIN posts p ON p.rowid = m.value ORDER BY m.key",
            arguments: ["[" + rowids.lazy.map(String.init).joined(separator: ",") + "]"])
    }
}

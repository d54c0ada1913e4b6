import Foundation
import GRDB
import Testing
import TestSupport
@testable import Catalog

/// Pages of words (``PostCatalog/wordsPage(_:after:offset:limit:oldestFirst:few:_:)``)
/// walk the posts in order or sort the matches, by budgets: these check that every way
/// lists exactly what the posts' order says, across ties in time, undated posts, newer
/// copies of posts, and both directions, however the pages are cut.
@Suite struct WordsPageTests {
    /// 90 posts over a few seconds: ties within a second (and fractions of it), undated
    /// posts, one before 1970 and two far in the future.
    static func posts() -> [ManifestTweet] {
        (1...90).map { n in
            let at: Double? = switch n {
            case _ where n % 11 == 0: nil
            case 13: -100.25
            case 14, 15: 1e11 + Double(n)
            default: 1_700_000_000 + Double(n % 6) + (n % 4 == 0 ? 0.5 : 0)
            }
            let text = (n % 3 == 0 ? "other" : "common") + (n % 7 == 0 ? " rare" : "")
            return PostCatalogTests.tweet("\(1000 + n * 7 % 90)", at: at, text: text)
        }
    }

    /// A catalog of ``posts()``, after an older run whose copies of some said "common
    /// once" (replaced: their words must go), read the big way or post by post.
    static func catalog(bigRead: Bool, manyMatches: Int = 10, walkBudget: Int = PostCatalog.defaultWalkBudget) throws -> PostCatalog {
        let root = try ScratchDirectory.make("tc-words-page")
        try PostCatalogTests.write(posts().filter { $0.id.hasSuffix("3") }.map { post in
            var old = post
            old.text = "common once"
            return old
        }, at: 0.5, name: "a.json", in: root)
        try PostCatalogTests.write(posts(), at: 1, name: "m.json", in: root)
        let catalog = try PostCatalog(cacheRoot: root, bigRead: bigRead ? 0 : .max, manyMatches: manyMatches,
                                  walkBudget: walkBudget)
        _ = try catalog.refresh()
        return catalog
    }

    /// The posts with `word`, in the order of the list of every post (the date index's
    /// walk, no words asked: the dates as the manifests hold them).
    static func expected(_ word: String, oldestFirst: Bool, in catalog: PostCatalog) throws -> [String] {
        try catalog.posts(limit: 1_000, oldestFirst: oldestFirst)
            .filter { $0.text.split(separator: " ").contains { $0.hasPrefix(word) } }.map(\.id)
    }

    /// Every way to a page: a walk through a few matches or a sort of them (`manyMatches`
    /// 1,000), a walk asking the index of each post (`com`, a short prefix) or through
    /// the set of many matches (10), and budgets that run out mid-walk (4) or never.
    @Test(arguments: [(false, 10, 4), (true, 10, PostCatalog.defaultWalkBudget), (false, 1_000, 4), (false, 1_000, PostCatalog.defaultWalkBudget)])
    func pagesByKeyAndByOffsetListThePostsInOrder(bigRead: Bool, manyMatches: Int, walkBudget: Int) throws {
        let catalog = try Self.catalog(bigRead: bigRead, manyMatches: manyMatches, walkBudget: walkBudget)
        for word in ["common", "rare", "comm", "com", "c", "once"] {
            for oldestFirst in [false, true] {
                let expected = try Self.expected(word, oldestFirst: oldestFirst, in: catalog)
                #expect(expected.isEmpty == (word == "once"))
                for size in [1, 4, 7, 100] {
                    var byKey: [String] = [], byOffset: [String] = []
                    var key: PostKey?
                    while byKey.count <= expected.count {
                        let page = try catalog.posts(PostFilter(text: word), after: key, limit: size, oldestFirst: oldestFirst)
                        guard let last = page.last else { break }
                        byKey += page.map(\.id)
                        key = PostKey(after: last)
                    }
                    while byOffset.count <= expected.count {
                        let page = try catalog.posts(PostFilter(text: word), offset: byOffset.count, limit: size, oldestFirst: oldestFirst)
                        guard !page.isEmpty else { break }
                        byOffset += page.map(\.id)
                    }
                    #expect(byKey == expected, "\(word) \(oldestFirst) \(size) by key")
                    #expect(byOffset == expected, "\(word) \(oldestFirst) \(size) by offset")
                }
            }
        }
    }

    /// The first page finds a few matches in one pass (count and page), many by the
    /// index's count and a walk: the same posts either way.
    @Test(arguments: [1, 10, 1_000], [4, PostCatalog.defaultWalkBudget])
    func theFirstPageIsTheSameWhicheverWayItCounts(manyMatches: Int, walkBudget: Int) throws {
        let catalog = try Self.catalog(bigRead: false, manyMatches: manyMatches, walkBudget: walkBudget)
        for word in ["common", "rare", "com", "zzz"] {
            let expected = try Self.expected(word, oldestFirst: false, in: catalog)
            for limit in [1, 5, 200] {
                let first = try catalog.firstPage(PostFilter(text: word), limit: limit)
                #expect(first.total == expected.count && first.posts.map(\.id) == Array(expected.prefix(limit)), "\(word) \(limit)")
            }
        }
    }
}

extension WordsPageTests {
    @Test func shortLastWordsAreCheapToAskPostByPost() {
        #expect(PostCatalog.cheapToProbe("\"ul\"*") && PostCatalog.cheapToProbe("\"lo\" \"rum\"*"))
        #expect(PostCatalog.cheapToProbe("\"m\"*") && !PostCatalog.cheapToProbe("\"lo\" \"anmi\"*"))
        #expect(!PostCatalog.cheapToProbe("\"ça\"*") && !PostCatalog.cheapToProbe("\"ul\""))
    }
}

extension WordsPageTests {
    /// The walk's expected length, even for a page number past any real one (no overflow trap).
    @Test func aWalksLengthIsSaturated() {
        #expect(PostCatalog.walk(100, in: 1_000_000, matches: 10_000) == 10_000)
        #expect(PostCatalog.walk(Int.max / 2, in: 1_000_000, matches: 10) == .max)
        #expect(PostCatalog.walk(5, in: 0, matches: 0) == 0)
    }
}

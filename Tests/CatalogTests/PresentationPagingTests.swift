import Foundation
import Testing
import TestSupport
@testable import Catalog

/// A search, hashtag or user with more photos than a Manifest holds is paged: the
/// first page at its Manifest's address, later pages numbered, a Collection of them
/// all, and no document with more than a page of posts.
@Suite struct PresentationPagingTests {
    static func post(_ n: Int, photo: Bool) -> ManifestTweet {
        var post = PostCatalogTests.tweet("\(n)", at: Double(n), tags: ["big"])
        if photo {
            post.media = [.init(id: "m\(n)", type: "photo", url: "https://pbs.twimg.com/m\(n).jpg",
                                sha256: String(repeating: String(n % 10), count: 64), contentType: "image/jpeg",
                                width: 40, height: 30)]
        }
        return post
    }

    @Test func aLongListingIsPagedAndEveryPageReadsBack() throws {
        let root = try ScratchDirectory.make("tc-paging")
        // Eight posts with a photo and two without: pages of 3 hold the eight.
        let posts = (1...10).map { Self.post($0, photo: $0 % 4 != 0) }
        try PostCatalogTests.write(posts, at: 1, name: "a.json", in: root)
        let catalog = try PostCatalog.open(cacheRoot: root).catalog
        let links = PresentationBuilder.Links(base: "https://x.example/p", imageService: "https://x.example/iiif/3",
                                              thumbnail: { sha, _ in "https://x.example/thumb/\(sha)" })
        let builder = PresentationBuilder(catalog: catalog, links: links, pageSize: 3)

        #expect(try builder.pages(of: .hashtag("big")) == 3)
        let first = try #require(try builder.manifest(.hashtag("big")))
        #expect(first.id == "https://x.example/p/hashtag/big/manifest.json")
        #expect(first.items.count == 3)
        #expect(first.partOf == [PartOf(id: "https://x.example/p/hashtag/big/collection.json")])
        #expect(first.label == ["en": ["#big (1 of 3)"]])
        let second = try #require(try builder.manifest(.page(.hashtag("big"), 2)))
        #expect(second.id == "https://x.example/p/hashtag/big/2/manifest.json")
        let third = try #require(try builder.manifest(.page(.hashtag("big"), 3)))
        #expect(third.items.count == 2)
        #expect(try builder.manifest(.page(.hashtag("big"), 4)) == nil)
        // Every photo once, newest first, across the pages.
        let canvases = (first.items + second.items + third.items).map(\.id)
        #expect(Set(canvases).count == 8)
        #expect(canvases.first?.contains("/canvas/10/") == true)

        let pages = try #require(try builder.pagesCollection(.hashtag("big")))
        #expect(pages.items.map(\.id) == [
            "https://x.example/p/hashtag/big/manifest.json", "https://x.example/p/hashtag/big/2/manifest.json",
            "https://x.example/p/hashtag/big/3/manifest.json",
        ])
        // One page: no Collection, no partOf.
        let whole = PresentationBuilder(catalog: catalog, links: links, pageSize: 10)
        #expect(try whole.pagesCollection(.hashtag("big")) == nil)
        #expect(try whole.manifest(.hashtag("big"))?.partOf == nil)
        #expect(try whole.manifest(.hashtag("big"))?.items.count == 8)
    }

    /// A run's result file and a listing of the same photos say the same: the posts
    /// counted are those the photos come from, not every post of the file.
    @Test func aRunFileAndAListingCountThePostsOfTheirPhotosAlike() throws {
        let root = try ScratchDirectory.make("tc-labels")
        let posts = (1...10).map { Self.post($0, photo: $0 % 4 != 0) }
        try PostCatalogTests.write(posts, at: 1, name: "a.json", in: root)
        let catalog = try PostCatalog.open(cacheRoot: root).catalog
        let links = PresentationBuilder.Links(base: "https://x.example/p", imageService: "https://x.example/iiif/3",
                                              thumbnail: { sha, _ in "https://x.example/thumb/\(sha)" })
        let builder = PresentationBuilder(catalog: catalog, links: links, pageSize: 20)
        let listing = try #require(try builder.manifest(.hashtag("big")))
        let file = try #require(try builder.runFileManifest(stamp: "a", index: 0))
        #expect(listing.summary == ["en": ["8 photos from 8 posts by 1 author"]])
        #expect(file.summary == listing.summary, "\(String(describing: file.summary))")
    }

    /// From the top Collection every page of a paged search is reachable: it lists the
    /// search by the Collection of its pages (viewers do not follow `partOf`).
    @Test func theTopCollectionListsAPagedSearchByItsPages() throws {
        let root = try ScratchDirectory.make("tc-top")
        let posts = (1...10).map { n in
            var post = Self.post(n, photo: true)
            post.query = "#big"
            return post
        }
        try PostCatalogTests.write(posts, at: 1, name: "a.json", in: root)
        let catalog = try PostCatalog.open(cacheRoot: root).catalog
        let links = PresentationBuilder.Links(base: "https://x.example/p", imageService: "https://x.example/iiif/3",
                                              thumbnail: { sha, _ in "https://x.example/thumb/\(sha)" })
        let paged = try PresentationBuilder(catalog: catalog, links: links, pageSize: 3).collection()
        let search = try #require(paged.items.first { $0.label == ["en": ["Search: #big"]] })
        #expect(search.type == "Collection")
        let pages = try #require(try PresentationBuilder(catalog: catalog, links: links, pageSize: 3).pagesCollection(.search("#big")))
        #expect(search.id == pages.id && pages.items.count == 4)
        let whole = try PresentationBuilder(catalog: catalog, links: links, pageSize: 20).collection()
        let one = try #require(whole.items.first { $0.label == ["en": ["Search: #big"]] })
        #expect(one.type == "Manifest" && one.id.hasSuffix("/manifest.json"))
    }

    @Test func pageAddressesParseBackAndOnlyOneWay() {
        for target in [PresentationTarget.pages(.user("eve")), .page(.search("a b"), 2), .page(.hashtag("x"), 12)] {
            #expect(PresentationTarget.parse(target.path.split(separator: "/").map(String.init)) == target)
        }
        #expect(PresentationTarget.parse(["hashtag", "x", "1", "manifest.json"]) == nil, "page 1 is manifest.json")
        #expect(PresentationTarget.parse(["hashtag", "x", "02", "manifest.json"]) == nil)
        #expect(PresentationTarget.parse(["other", "x", "2", "manifest.json"]) == nil)
        #expect(PresentationTarget.parse(["other", "x", "collection.json"]) == nil)
    }

    /// A run's result file with more photos than a Manifest holds is paged as a listing
    /// is, from the catalog's pages of the run: every photo of the file once, in the
    /// file's order, the run as it was written (a newer copy of a post elsewhere does
    /// not take it away), and a post `forget` blanked out of the file left out.
    @Test func aRunFileIsPagedFromTheCatalogAsTheRunWasWritten() throws {
        let root = try ScratchDirectory.make("tc-run-pages")
        let stamp = "20261205T000000Z"
        // x.json: 1,100 posts, 1,000 with a photo; y.json: 3, all with one.
        var posts = (1...1_100).map { n in
            var post = Self.post(n, photo: n % 11 != 0)
            post.source = "x.json"
            return post
        }
        posts += (2_001...2_003).map { n in
            var post = Self.post(n, photo: true)
            post.source = "y.json"
            return post
        }
        let run = Manifest(
            generatedAt: Date(timeIntervalSince1970: 1), tool: "test", cacheRoot: root.path,
            sources: [.init(path: "x.json", formats: ["v1.1"], query: "#big", tweets: 1_100, problems: []),
                      .init(path: "y.json", formats: ["v1.1"], tweets: 3, problems: [])],
            tweets: posts, includedTweets: [], failures: [], summary: RunSummary())
        let file = root.appendingPathComponent("manifests/\(stamp).json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try run.encoded().write(to: file)
        // A newer run has its own copy of post 1.
        try PostCatalogTests.write([Self.post(1, photo: true)], at: 5, name: "20261206T000000Z.json", in: root)
        let catalog = try PostCatalog.open(cacheRoot: root).catalog
        let links = PresentationBuilder.Links(base: "https://x.example/p", imageService: "https://x.example/iiif/3",
                                              thumbnail: { sha, _ in "https://x.example/thumb/\(sha)" })
        let builder = PresentationBuilder(catalog: catalog, links: links)
        let base = "https://x.example/p/run/\(stamp)"

        let collection = try #require(try builder.runCollection(stamp: stamp))
        #expect(collection.items.map(\.id) == ["\(base)/0/collection.json", "\(base)/1/manifest.json"])
        #expect(collection.items.map(\.type) == ["Collection", "Manifest"])
        #expect(collection.summary == ["en": ["2 result files, 1103 tweets"]])
        let pages = try #require(try builder.runFilePages(stamp: stamp, index: 0))
        #expect(pages.items.map(\.id) == ["\(base)/0/manifest.json", "\(base)/0/2/manifest.json"])
        #expect(try builder.runFilePages(stamp: stamp, index: 1) == nil, "one page: no Collection")

        let first = try #require(try builder.runFileManifest(stamp: stamp, index: 0))
        let second = try #require(try builder.runFileManifest(stamp: stamp, index: 0, page: 2))
        #expect(try builder.runFileManifest(stamp: stamp, index: 0, page: 3) == nil)
        #expect(first.label == ["en": ["x.json: #big (1 of 2)"]])
        #expect(first.partOf == [PartOf(id: "\(base)/0/collection.json")])
        #expect(second.id == "\(base)/0/2/manifest.json")
        #expect(first.items.count == PostCatalog.runPageSize && second.items.count == 1_000 - PostCatalog.runPageSize)
        let canvases = (first.items + second.items).map(\.id)
        #expect(Set(canvases).count == 1_000)
        #expect(canvases.first == "\(base)/0/canvas/1/1", "the file's order, post 1 as this run has it")
        #expect(canvases.last == "\(base)/0/2/canvas/1099/1", "1,100 has no photo")
        let y = try #require(try builder.runFileManifest(stamp: stamp, index: 1))
        #expect(y.items.count == 3 && y.partOf == nil)
        #expect(try builder.runFileManifest(stamp: stamp, index: 2) == nil)
        #expect(try builder.runCollection(stamp: "nosuchrun") == nil)

        // `forget` blanks a post out of the file in place: its page leaves it out.
        let manifest = try ManifestFile(url: file)
        var blanked: Range<Int>?
        try manifest.forEachPost { section, range in
            if section == .tweets, blanked == nil, try manifest.post(at: range).id == "2" { blanked = range }
        }
        let range = try #require(blanked)
        let handle = try FileHandle(forWritingTo: file)
        try handle.seek(toOffset: UInt64(range.lowerBound))
        try handle.write(contentsOf: Data(repeating: UInt8(ascii: " "), count: range.count))
        try handle.close()
        let after = try #require(try builder.runFileManifest(stamp: stamp, index: 0))
        #expect(after.items.count == PostCatalog.runPageSize - 1)
        #expect(!after.items.contains { $0.id.contains("/canvas/2/") })

        // `forget` tells the catalog what it blanked: the pages and counts follow, and a
        // page left with no post is no longer listed.
        var second500: [Range<Int>] = []
        var withPhotos = 0
        try manifest.forEachPost { section, range in
            guard section == .tweets, range != blanked else { return }
            let post = try manifest.post(at: range)
            guard post.source == "x.json", post.media.contains(where: PresentationBuilder.servable) else { return }
            withPhotos += 1
            if withPhotos > PostCatalog.runPageSize - 1 { second500.append(range) }
        }
        #expect(second500.count == 1_000 - PostCatalog.runPageSize, "page 2's posts")
        let path = "manifests/\(stamp).json"
        let facts = try FileManager.default.attributesOfItem(atPath: file.path)
        let size = (facts[.size] as? NSNumber)?.intValue ?? 0
        let mtime = Int((facts[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        try catalog.forget([], rewritten: [(path, size, mtime, [range])], unused: [])
        #expect(try catalog.runOutline(path: path)?.files.first?.postsWithPhotos == 999)
        try catalog.forget([], rewritten: [(path, size, mtime, second500)], unused: [])
        let outline = try #require(try catalog.runOutline(path: path))
        #expect(outline.files.map(\.pages) == [1, 1] && outline.files.first?.postsWithPhotos == 499)
        #expect(try builder.runFilePages(stamp: stamp, index: 0) == nil, "one page left: no Collection")
        #expect(try builder.runFileManifest(stamp: stamp, index: 0)?.partOf == nil)
    }
}

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
        let run = PostCatalogTests.manifest(posts, at: 1, root: root)
        let file = try #require(builder.runFileManifest(stamp: "20261205T000000Z", index: 0, run: run))
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
}

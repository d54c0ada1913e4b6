import Foundation
import Testing
import TestSupport
import MediaTypes
@testable import Catalog

/// Near-duplicates through the catalog: hashes read from manifests, posts joined,
/// earliest post first, turned copies found through the dihedral hashes.
@Suite struct DuplicateQueryTests {
    static func sha(_ n: Int) -> String { String(format: "%064x", n) }

    static func signature(_ original: PDQHash, _ maker: inout HashMaker, quality: Int = 90,
                          variants: [PDQTransform: PDQHash] = [:]) -> PDQSignature {
        PDQSignature(quality: quality, dihedral: PDQTransform.allCases.map { t in
            t == .original ? original : variants[t] ?? maker.hash()
        })
    }

    static func post(_ id: String, at seconds: Double, user: String, network: String, image: Int,
                     signature: PDQSignature?) -> ManifestTweet {
        var tweet = PostCatalogTests.tweet(id, at: seconds, user: user)
        tweet.network = network
        var media = ManifestTweet.Media(id: "m\(id)", type: "photo", url: "https://example.com/\(image).jpg",
                                        sha256: sha(image), bytes: 10, contentType: "image/jpeg", width: 800, height: 600)
        if let signature {
            media.pdq = signature.hash.hex
            media.pdqQuality = signature.quality
            media.pdqDihedral = signature.dihedral.dropFirst().map(\.hex)
        }
        tweet.media = [media]
        return tweet
    }

    @Test func findsCopiesTurnedCopiesAndGroupsThemEarliestFirst() throws {
        let root = try ScratchDirectory.make("tc-dupes")
        var maker = HashMaker(state: 99)
        let photo = maker.hash()
        let a = Self.signature(photo, &maker)
        // A re-encoded copy: 6 bits away.
        let b = Self.signature(maker.moved(photo, bits: 6), &maker)
        // A mirrored copy: its hash is near the original's mirrored one, and its own
        // mirrored hash near the original.
        let c = Self.signature(maker.moved(a.hash(.flipY), bits: 4), &maker,
                               variants: [.flipY: maker.moved(photo, bits: 5)])
        let unrelated = Self.signature(maker.hash(), &maker)
        let flat = Self.signature(maker.moved(photo, bits: 2), &maker, quality: 10)
        try PostCatalogTests.write([
            Self.post("3", at: 300, user: "carol", network: "bluesky", image: 3, signature: c),
            Self.post("2", at: 200, user: "bob", network: "mastodon", image: 2, signature: b),
            Self.post("1", at: 100, user: "alice", network: "x", image: 1, signature: a),
            Self.post("4", at: 400, user: "dana", network: "x", image: 1, signature: a),
            Self.post("5", at: 500, user: "erin", network: "x", image: 5, signature: unrelated),
            Self.post("6", at: 600, user: "finn", network: "x", image: 6, signature: flat),
            Self.post("7", at: 700, user: "gus", network: "x", image: 7, signature: nil),
        ], at: 1000, name: "a.json", in: root)
        let (catalog, _) = try PostCatalog.open(cacheRoot: root)
        let index = try catalog.perceptualIndex()
        // The flat photo is not filed.
        #expect(index.index.count == 4)
        #expect(try catalog.pdqSignature(of: Self.sha(1)) == a)

        let near = try catalog.nearDuplicates(of: Self.sha(1), in: index)
        #expect(near.map(\.sha256) == [Self.sha(3), Self.sha(2)] || near.map(\.sha256) == [Self.sha(2), Self.sha(3)])
        let mirrored = try #require(near.first { $0.sha256 == Self.sha(3) })
        #expect(mirrored.transform == PDQTransform.flipY.description)
        #expect(mirrored.posts.map(\.network) == ["bluesky"])
        #expect(try catalog.nearDuplicates(of: Self.sha(5), in: index).isEmpty)
        #expect(try catalog.nearDuplicates(of: Self.sha(6), in: index).isEmpty)

        let (groups, total) = try catalog.duplicateGroups(in: index)
        #expect(total == 1)
        let group = try #require(groups.first)
        #expect(group.images.map(\.sha256) == [Self.sha(1), Self.sha(2), Self.sha(3)])
        #expect(group.images[0].posts.map(\.id) == ["1", "4"])
        #expect(group.images[0].distance == 0)
        #expect(group.images[2].transform == PDQTransform.flipY.description)
        #expect(group.postCount == 4)
        // A stricter threshold splits the mirrored copy off (4-5 bits) but keeps nothing at 3.
        #expect(try catalog.duplicateGroups(threshold: 3, in: index).total == 0)

        // A list hash matches what is within the threshold of it, as posted.
        let listed = try catalog.matches(of: maker.moved(photo, bits: 10), in: index)
        #expect(listed.map(\.sha256).sorted() == [Self.sha(1), Self.sha(2)])
        #expect(try catalog.matches(of: maker.hash(), in: index).isEmpty)
    }

    /// Groups first posted at the same moment come in the order of their first image's
    /// hash, not in whatever order a dictionary of them gave that run.
    @Test func groupsThatTieComeInTheOrderOfTheirHashes() throws {
        let root = try ScratchDirectory.make("tc-dupes-ties")
        var maker = HashMaker(state: 7)
        var posts: [ManifestTweet] = []
        // Eight pairs of copies, every post at the same second, written in descending image order.
        for pair in (0..<8).reversed() {
            let photo = maker.hash()
            let first = Self.signature(photo, &maker), second = Self.signature(maker.moved(photo, bits: 3), &maker)
            posts.append(Self.post("\(100 + 2 * pair)", at: 100, user: "u", network: "x", image: 100 + 2 * pair, signature: first))
            posts.append(Self.post("\(101 + 2 * pair)", at: 100, user: "u", network: "x", image: 101 + 2 * pair, signature: second))
        }
        try PostCatalogTests.write(posts, at: 1000, name: "a.json", in: root)
        let (catalog, _) = try PostCatalog.open(cacheRoot: root)
        let groups = try catalog.duplicateGroups(in: catalog.perceptualIndex()).groups
        #expect(groups.count == 8)
        let firsts = groups.compactMap { $0.images.first?.sha256 }
        #expect(firsts == firsts.sorted(), "\(firsts)")
    }
}

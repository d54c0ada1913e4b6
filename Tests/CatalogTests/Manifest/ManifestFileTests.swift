import Foundation
import Testing
@testable import Catalog

/// A manifest's posts are found by the scan that opens it, and handed out again from
/// the places it kept when there are few enough; past that bound the file is scanned
/// again. Both ways must give the same posts, in file order, in either order of
/// members (runs' streaming one and the older sorted one).
@Suite struct ManifestFileTests {
    static func places(_ file: ManifestFile) throws -> [(ManifestFile.Section, String)] {
        var found: [(ManifestFile.Section, String)] = []
        try file.forEachPost { section, range in found.append((section, try file.post(at: range).id)) }
        return found
    }

    @Test(arguments: [false, true])
    func keptPlacesAndASecondScanGiveTheSamePosts(oldOrder: Bool) throws {
        let m = ManifestJSONWriterTests.fullManifest(tweets: 5, included: 2)
        let bytes = oldOrder ? try Manifest.referenceEncoder().encode(m) : ManifestJSONWriter.encode(m)
        let expected = m.tweets.map { (ManifestFile.Section.tweets, $0.id) }
            + m.includedTweets.map { (ManifestFile.Section.includedTweets, $0.id) }
        for keeping in [ManifestFile.keptPlaces, 7, 6, 0] {
            let file = try ManifestFile(bytes: bytes, keepingPlaces: keeping)
            #expect(file.tweetCount == 5 && file.includedCount == 2)
            let found = try Self.places(file)
            // In file order: the sorted order puts `included_tweets` first.
            let order = oldOrder ? expected.suffix(2) + expected.prefix(5) : expected[...]
            #expect(found.map(\.1) == order.map(\.1), "keeping \(keeping)")
            #expect(found.map(\.0) == order.map(\.0), "keeping \(keeping)")
        }
    }
}

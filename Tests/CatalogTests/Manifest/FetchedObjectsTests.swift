import Foundation
import Testing
@testable import Catalog

/// Sync's narrow view of a post, read by hand as Foundation's decoder reads it.
@Suite struct FetchedObjectsTests {
    static let post = #"""
        {"id": "1", "text": "t", "author": {"screen_name": "a", "name": "A",
           "avatar": {"url": "https://a/1.jpg", "sha256": "ab", "bytes": 1234, "content_type": "image/jpeg",
                      "thumbnails": [{"size": 150, "path": "thumbs/ab/150.jpg", "sha256": "cd"}]}},
         "media": [{"id": "m", "type": "video", "url": "https://p/1.jpg", "sha256": null, "width": 640, "height": 360,
                    "video": {"url": "https://v/1.mp4", "sha256": "ef", "bytes": 99, "thumbnails": null}},
                   {"id": "n", "type": "photo"}],
         "entities": {"hashtags": [], "cashtags": [], "mentions": [], "urls": []}}
        """#

    static func read(_ json: String) -> (hand: FetchedObjects?, foundation: FetchedObjects?) {
        let bytes = Array(json.utf8)
        let hand = bytes.withUnsafeBytes { StrictJSONReader.whole($0) { $0.fetchedObjects() } }
        return (hand, try? JSONDecoder().decode(FetchedObjects.self, from: Data(bytes)))
    }

    @Test func readsAsFoundationDoes() throws {
        let (hand, foundation) = Self.read(Self.post)
        let objects = try #require(hand)
        #expect(objects == foundation)
        #expect(objects.author.avatar?.bytes == 1234)
        #expect(objects.author.avatar?.thumbnails?.first?.sha256 == "cd")
        #expect(objects.media.count == 2)
        #expect(objects.media[0].video?.url == "https://v/1.mp4")
        #expect(objects.media[0].sha256 == nil)
    }

    @Test(arguments: [
        (#""bytes": 1234"#, #""bytes": 1234.5"#),
        (#""bytes": 1234"#, #""bytes": "1234""#),
        (#""video": {"url": "https://v/1.mp4","#, #""video": {"#),  // a video without its URL
        (#""avatar": {"#, #""avatar": null, "avatar": {"#),  // a key twice
        (#""path": "thumbs/ab/150.jpg""#, #""path": null"#),
        (#"{"id": "n", "type": "photo"}"#, #"{"id": "n", "type": "photo",}"#),
    ])
    func unusualPostsAreLeftToFoundation(find: String, replace: String) {
        let json = Self.post.replacingOccurrences(of: find, with: replace)
        #expect(json != Self.post)
        let (hand, foundation) = Self.read(json)
        if let hand { #expect(hand == foundation) }
        let read = Array(json.utf8).withUnsafeBytes { try? FetchedObjects.read($0) }
        #expect(read == foundation)
    }
}

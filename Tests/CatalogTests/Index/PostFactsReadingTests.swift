import Foundation
import Testing
@testable import Catalog

/// The hand reader of a post's facts reads what Foundation's decoder reads, and
/// hands anything else to it.
@Suite struct PostFactsReadingTests {
    static let post = #"""
        {"id": "17", "created_at": "2024-01-02T03:04:05Z", "text": "caf\u00e9 \"quoted\" \ud83c\udff3 e\u0301 \/ \n tab\t",
         "lang": "en", "extra": {"nested": [1, -2.5e3, true, false, null, {"a": "b"}], "empty": {}},
         "author": {"id": "7", "screen_name": "Ada_L", "name": "Ada Lovelace", "avatar": {"url": "https://a/b.jpg", "sha256": null}},
         "entities": {"hashtags": [{"start": 0, "end": 3, "tag": "Caf"}], "cashtags": [],
                      "mentions": [{"username": "bob"}], "urls": [{"url": "https://t.co/x", "expanded_url": "https://e.com/[a]"}],
                      "media": []},
         "media": [{"id": "m1", "type": "photo", "url": "https://p/1.jpg", "sha256": "ab", "content_type": "image/jpeg",
                    "width": 640, "height": 480, "video": null, "pdq_quality": 100, "pdq_dihedral": ["a", "b"]}],
         "query": null, "network": "mastodon"}
        """#

    static func both(_ json: String) -> (hand: PostFacts?, foundation: PostFacts?) {
        let bytes = Array(json.utf8)
        let hand = bytes.withUnsafeBytes { StrictJSONReader.whole($0) { $0.postFacts(collecting: false)?.facts } }
        return (hand, try? JSONDecoder().decode(PostFacts.self, from: Data(bytes)))
    }

    @Test func readsAPostAsFoundationDoes() throws {
        let (hand, foundation) = Self.both(Self.post)
        let facts = try #require(hand)
        #expect(facts == foundation)
        #expect(facts.text == "café \"quoted\" 🏳 e\u{301} / \n tab\t")
        #expect(facts.author.avatar?.sha256 == nil)
        #expect(facts.media.first?.width == 640)
        #expect(facts.query == nil)
        #expect(facts.network == "mastodon")
        #expect(facts.createdAt == Date(timeIntervalSince1970: 1_704_164_645))
    }

    /// Each is either read the same by both or left to Foundation: the hand reader
    /// never reads a post Foundation would not, nor reads one differently.
    @Test(arguments: [
        (#""id": "17""#, #""id": 17"#),  // a number where a string is
        (#""width": 640"#, #""width": 640.0"#),  // Foundation's own rules for numbers
        (#""width": 640"#, #""width": 1e2"#),
        (#""width": 640"#, #""width": 99999999999999999999"#),
        (#""query": null"#, #""query": null, "query": "again""#),  // a key twice
        (#""network": "mastodon"}"#, #""network": "mastodon",}"#),  // a trailing comma
        (#"\ud83c\udff3"#, #"\ud83c"#),  // a lone surrogate
        (#"\u00e9"#, #"\u00zz"#),  // a broken escape
        (#""lang": "en""#, "\"lang\": \"e\u{1}n\""),  // a control character
        (#"[1, -2.5e3"#, #"[01, -2.5e3"#),  // a number JSON does not allow
        (#"true, false"#, #"tru, false"#),
        (#""text": "caf"#, #""text": ["caf"], "x": "caf"#),
        (#""created_at": "2024-01-02T03:04:05Z""#, #""created_at": "2024-01-02T03:04:05.250Z""#),  // another ISO form
        (#""created_at": "2024-01-02T03:04:05Z""#, #""created_at": "yesterday""#),
    ])
    func unusualPostsAreLeftToFoundation(find: String, replace: String) throws {
        let json = Self.post.replacingOccurrences(of: find, with: replace)
        #expect(json != Self.post)
        let (hand, foundation) = Self.both(json)
        if let hand { #expect(hand == foundation) }
        // And through the catalog's entry point, whatever reads it reads it as Foundation does.
        let bytes = Array(json.utf8)
        let read = bytes.withUnsafeBytes { try? PostFacts.read($0) }
        #expect(read == foundation)
    }

    static let fetched = #"""
        {"id": "9", "created_at": "2024-01-02T03:04:05Z", "text": "two media",
         "author": {"screen_name": "eve", "name": "Eve", "avatar": {"url": "https://a/e.jpg", "sha256": "aa", "bytes": 10,
                    "content_type": "image/jpeg", "width": 400, "height": 400,
                    "thumbnails": [{"size": 150, "path": "derived/aa/aa.thumb-150.jpg", "sha256": "bb"}]}},
         "entities": {"hashtags": [], "cashtags": [], "mentions": [], "urls": []},
         "media": [{"id": "m1", "type": "photo", "url": "https://p/1.jpg", "sha256": "cc", "bytes": 2048, "content_type": "image/jpeg",
                    "width": 640, "height": 480, "thumbnails": [{"path": "derived/cc/cc.thumb-150.jpg", "sha256": null},
                    {"path": "derived/cc/cc.thumb-600.jpg", "sha256": "dd"}], "tiles": {"levels": 3}},
                   {"id": "m2", "type": "video", "url": "https://p/2.jpg", "sha256": null, "bytes": null,
                    "video": {"url": "https://v/2.mp4", "sha256": "ee", "bytes": 99, "content_type": "video/mp4",
                              "thumbnails": [{"path": "derived/ee/ee.thumb-150.jpg", "sha256": "ff"}]}}]}
        """#

    /// `sync` takes each post's fetched objects from the catalog's reading of it: the
    /// same facts, and the same objects sync's own reader and Foundation read.
    @Test(arguments: [fetched, post])
    func factsWithObjectsAreTheFactsAndTheObjectsReadAlone(_ json: String) throws {
        let bytes = Array(json.utf8)
        let both = bytes.withUnsafeBytes { PostFacts.readWithObjects($0) }
        let facts = try bytes.withUnsafeBytes { try PostFacts.read($0) }
        #expect(try both.facts.get() == facts)
        let alone = try bytes.withUnsafeBytes { try FetchedObjects.read($0) }
        #expect(both.objects == alone)
        #expect(both.objects == (try JSONDecoder().decode(FetchedObjects.self, from: Data(bytes))))
        // And by hand, not by Foundation: the plain form every manifest writer makes.
        #expect(bytes.withUnsafeBytes { StrictJSONReader.whole($0) { $0.postFacts(collecting: true) } } != nil)
        if json == Self.fetched {
            #expect(both.objects?.media.count == 2)
            #expect(both.objects?.media[1].video?.thumbnails?.first?.sha256 == "ff")
            #expect(both.objects?.author.avatar?.thumbnails?.first?.path == "derived/aa/aa.thumb-150.jpg")
        }
    }

    @Test func aPostWhoseFactsDoNotReadMayStillNameObjects() throws {
        // No media id: not a post the catalog can hold, but its URL was fetched.
        let json = Self.fetched.replacingOccurrences(of: #""id": "m1", "#, with: "")
        let both = Array(json.utf8).withUnsafeBytes { PostFacts.readWithObjects($0) }
        #expect(throws: ManifestFile.Problem.self) { try both.facts.get() }
        #expect(both.objects?.media.first?.url == "https://p/1.jpg")
    }

    @Test func aPostOfUnusualFormIsStillRead() throws {
        // Left to Foundation, not refused: an ISO 8601 date with fractions.
        let json = Self.post.replacingOccurrences(of: "03:04:05Z", with: "03:04:05.250Z")
        let facts = try Array(json.utf8).withUnsafeBytes { try PostFacts.read($0) }
        #expect(facts.id == "17")
        #expect(facts.createdAt != nil)
    }

    @Test func aBrokenPostSaysWhatFoundationSays() {
        let json = Self.post.replacingOccurrences(of: #""author""#, with: #""writer""#)
        #expect(throws: DecodingError.self) { try Array(json.utf8).withUnsafeBytes { try PostFacts.read($0) } }
    }
}

import Foundation
import Testing
@testable import TweetModel

/// Each network's way of saying a post's media may be sensitive becomes one flag,
/// which the viewer blurs until clicked; a stranger's odd value is not an error.
@Suite("Sensitive posts")
struct SensitiveFlagTests {
    @Test func xV1AndV2PossiblySensitive() throws {
        let v1 = Fixtures.parse(Fixtures.v1SearchPage([
            Fixtures.v1Tweet(id: "1", text: "plain"),
            Fixtures.v1Tweet(id: "2", text: "flagged", extra: #", "possibly_sensitive": true"#),
            Fixtures.v1Tweet(id: "3", text: "odd", extra: #", "possibly_sensitive": "yes""#),
        ]))
        #expect(v1.pages.flatMap(\.tweets).map(\.sensitive) == [false, true, false])
        #expect(v1.allProblems.isEmpty)

        let v2 = Fixtures.parse(#"""
        {"data": [\#(Fixtures.v2Tweet(id: "1", text: "plain", extra: #", "possibly_sensitive": false"#)),
                  \#(Fixtures.v2Tweet(id: "2", text: "flagged", extra: #", "possibly_sensitive": true"#))],
         "includes": {"users": [\#(Fixtures.v2User())]}, "meta": {"result_count": 2}}
        """#)
        #expect(v2.pages.flatMap(\.tweets).map(\.sensitive) == [false, true])
    }

    @Test func blueskyAdultAndGraphicLabelsButNotOthersOrNegated() throws {
        func post(_ rkey: String, record: String = "", view: String = "") -> String {
            #"{"uri": "at://did:plc:abc123/app.bsky.feed.post/\#(rkey)", "cid": "bafy\#(rkey)", "author": \#(BlueskyParsingTests.author), "record": {"$type": "app.bsky.feed.post", "text": "t", "createdAt": "2026-11-21T08:00:00.000Z"\#(record)}, "indexedAt": "2026-11-21T08:00:01.000Z"\#(view)}"#
        }
        let selfLabel = #", "labels": {"$type": "com.atproto.label.defs#selfLabels", "values": [{"val": "nudity"}]}"#
        let moderation = #", "labels": [{"src": "did:plc:mod", "uri": "at://x", "val": "graphic-media", "cts": "2026-11-21T08:00:00Z"}]"#
        let harmless = #", "labels": [{"src": "did:plc:mod", "val": "spam"}]"#
        let negated = #", "labels": [{"val": "porn"}, {"val": "porn", "neg": true}]"#
        let damaged = #", "labels": {"values": "porn"}"#
        let json = #"{"posts": [\#([post("a"), post("b", record: selfLabel), post("c", view: moderation), post("d", view: harmless), post("e", view: negated), post("f", record: damaged)].joined(separator: ","))]}"#
        let results = Fixtures.parse(json)
        #expect(results.pages.flatMap(\.tweets).map(\.sensitive) == [false, true, true, false, false, false])
    }
}

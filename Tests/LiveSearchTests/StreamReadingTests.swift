import Foundation
@testable import LiveSearch
import Testing

/// The two line formats the HTTP streams use: lines cut anywhere by the network,
/// and server-sent events on top of them.
@Suite struct StreamReadingTests {
    @Test func linesAreWholeHoweverTheChunksFall() {
        var splitter = LineSplitter(maxLine: 16)
        var lines: [LineSplitter.Line] = []
        for chunk in ["{\"a\"", ":1}\r", "\n\r\n{\"b\":2}\n", String(repeating: "x", count: 40), "\nok\n"] {
            lines += splitter.feed(Array(chunk.utf8))
        }
        #expect(lines == [.line(Array("{\"a\":1}".utf8)), .line([]), .line(Array("{\"b\":2}".utf8)), .overlong,
                          .line(Array("ok".utf8))])
    }

    @Test func serverSentEventsJoinDataAndSkipComments() {
        var events = ServerSentEvents()
        var seen: [ServerSentEvents.Event] = []
        let text = "\u{FEFF}:thump\nevent: update\ndata: {\"id\":\ndata: \"1\"}\n\n:thump\n\nevent:delete\ndata:42\nid: 7\n\ndata: plain\n\n"
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let event = events.feed(line: Array(line.utf8)) { seen.append(event) }
        }
        #expect(seen == [
            .init(name: "update", data: Array("{\"id\":\n\"1\"}".utf8), id: nil),
            .init(name: "delete", data: Array("42".utf8), id: "7"),
            .init(name: "message", data: Array("plain".utf8), id: "7"),
        ])
    }

    @Test func blueskyQueriesMatchTagsWordsAndAuthors() {
        var matcher = BlueskyMatcher(queries: ["#UCD", "@lab.bsky.social", "solar eclipse"])
        #expect(matcher.unresolvedHandles == ["lab.bsky.social"])
        #expect(matcher.onlyDIDs == nil, "words and tags need every post")
        matcher.resolve(handle: "lab.bsky.social", did: "did:plc:lab")
        #expect(matcher.matches(did: "did:plc:x", text: "hi", tags: ["ucd"]))
        #expect(matcher.matches(did: "did:plc:lab", text: "anything", tags: []))
        #expect(matcher.matches(did: "did:plc:x", text: "The Solar ECLIPSE today", tags: []))
        #expect(!matcher.matches(did: "did:plc:x", text: "solar panels", tags: ["ucdavis"]))
        var authors = BlueskyMatcher(queries: ["@a.test", "@b.test"])
        authors.resolve(handle: "a.test", did: "did:plc:a")
        #expect(authors.onlyDIDs == nil, "one handle unresolved")
        authors.resolve(handle: "b.test", did: "did:plc:b")
        #expect(authors.onlyDIDs == ["did:plc:a", "did:plc:b"])
    }

    @Test func jetstreamCommitsBecomePostViewsTheParserReads() throws {
        let reader = JetstreamReader(matcher: BlueskyMatcher(queries: ["#ucd"]), handles: HandleBook(),
                                     images: .init(), name: "test")
        let create = """
            {"did":"did:plc:abc","time_us":1800000000000001,"kind":"commit","commit":{"operation":"create","collection":"app.bsky.feed.post","rkey":"3kabc","cid":"bafyreiq","record":{"$type":"app.bsky.feed.post","text":"#ucd day","createdAt":"2027-01-15T10:00:00Z","facets":[{"index":{"byteStart":0,"byteEnd":4},"features":[{"$type":"app.bsky.richtext.facet#tag","tag":"ucd"}]}],"embed":{"$type":"app.bsky.embed.images","images":[{"alt":"a cat","image":{"$type":"blob","ref":{"$link":"bafkreicat"},"mimeType":"image/jpeg","size":10}}]}}}}
            """
        let events = reader.read(Array(create.utf8))
        #expect(events.count == 2)
        #expect(events.last == .cursor("1800000000000001"))
        guard case let .post(id, document) = events.first else {
            Issue.record("no post: \(events)")
            return
        }
        #expect(id == "at://did:plc:abc/app.bsky.feed.post/3kabc")
        let view = try #require(try JSONSerialization.jsonObject(with: Data(document)) as? [String: Any])
        let embed = try #require(view["embed"] as? [String: Any])
        let image = try #require((embed["images"] as? [[String: Any]])?.first)
        #expect(image["fullsize"] as? String == "https://cdn.bsky.app/img/feed_fullsize/plain/did:plc:abc/bafkreicat@jpeg")
        #expect(image["alt"] as? String == "a cat")
        #expect(view["indexedAt"] as? String == "2027-01-15T08:00:00.000Z")

        // Another post, a delete, an account gone, an identity, garbage.
        let other = #"{"did":"did:plc:abc","time_us":2,"kind":"commit","commit":{"operation":"create","collection":"app.bsky.feed.post","rkey":"x","record":{"text":"no tag"}}}"#
        #expect(reader.read(Array(other.utf8)) == [.cursor("2")])
        let delete = #"{"did":"did:plc:abc","time_us":3,"kind":"commit","commit":{"operation":"delete","collection":"app.bsky.feed.post","rkey":"3kabc"}}"#
        #expect(reader.read(Array(delete.utf8)) == [.deleted(id: "at://did:plc:abc/app.bsky.feed.post/3kabc"), .cursor("3")])
        let gone = #"{"did":"did:plc:abc","time_us":4,"kind":"account","account":{"active":false,"status":"deleted"}}"#
        #expect(reader.read(Array(gone.utf8)) == [.accountGone(userID: "did:plc:abc"), .cursor("4")])
        let pathy = #"{"did":"did:plc:abc","time_us":5,"kind":"commit","commit":{"operation":"delete","collection":"app.bsky.feed.post","rkey":"../x"}}"#
        #expect(reader.read(Array(pathy.utf8)) == [.cursor("5")])
        let slashed = #"{"did":"did:plc:a/../b?x","time_us":6,"kind":"commit","commit":{"operation":"delete","collection":"app.bsky.feed.post","rkey":"k"}}"#
        guard case .problem = reader.read(Array(slashed.utf8)).first else {
            Issue.record("a DID with a slash must be refused")
            return
        }
        guard case .problem = reader.read(Array("not json".utf8)).first else {
            Issue.record("garbage must be a problem")
            return
        }
    }
}

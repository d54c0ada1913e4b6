import Testing
@testable import TileServer

@Suite struct ConditionalRequestTests {
    static let iiif = "\"ab-iiif-768,512,256,256/256,256/0/default.jpg\""

    @Test func entityTagsWithCommasMatchThemselves() {
        #expect(ConditionalRequest.matches(Self.iiif, etag: Self.iiif))
        #expect(ConditionalRequest.matches("W/\(Self.iiif)", etag: Self.iiif), "weak comparison")
        #expect(ConditionalRequest.matches("\"x,y\", \(Self.iiif)", etag: Self.iiif))
        #expect(ConditionalRequest.matches(" \"a\" ,\t\(Self.iiif) , \"b\"", etag: Self.iiif))
        #expect(!ConditionalRequest.matches("\"ab-iiif-768\"", etag: Self.iiif), "a prefix is another tag")
        #expect(!ConditionalRequest.matches("\"ab-iiif-768,512,256,256/256,256/0/default.png\"", etag: Self.iiif))
    }

    @Test func starAndMalformedLists() {
        #expect(ConditionalRequest.matches("*", etag: "\"a\""))
        #expect(ConditionalRequest.matches("\"b\", *", etag: "\"a\""))
        #expect(!ConditionalRequest.matches("", etag: "\"a\""))
        #expect(!ConditionalRequest.matches(nil, etag: "\"a\""))
        #expect(!ConditionalRequest.matches("\"a", etag: "\"a\""), "an unclosed tag matches nothing")
        #expect(!ConditionalRequest.matches("a", etag: "\"a\""), "unquoted is not an entity-tag")
        #expect(ConditionalRequest.matches("\"a\"", etag: "W/\"a\""))
    }
}

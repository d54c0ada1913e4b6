import Testing
@testable import Catalog

/// The read's set of tags already written is only a shortcut: a tag is skipped only
/// once it was written, and a full set still asks for every tag it does not hold.
@Suite struct NotedTagsTests {
    @Test func aTagIsWrittenOnce() {
        let noted = NotedTags()
        #expect(noted.needsWriting("harbour"))
        #expect(!noted.needsWriting("harbour"))
        #expect(noted.needsWriting("winter"))
    }

    @Test func aFullSetStillAsksForNewTags() {
        let noted = NotedTags(capacity: 2)
        #expect(noted.needsWriting("a"))
        #expect(noted.needsWriting("b"))
        #expect(noted.needsWriting("c"))
        #expect(noted.needsWriting("c"))
        #expect(!noted.needsWriting("a"))
    }
}

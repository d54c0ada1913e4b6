import Testing
import TweetModel

/// Each network links its posts and authors where they live, and a handle or page
/// from a stranger gets no link rather than one somewhere else.
@Suite struct NetworkLinkTests {
    @Test func xLinksByHandleAndId() {
        #expect(Network.x.postURL(id: "113", handle: "ana", given: nil) == "https://x.com/ana/status/113")
        #expect(Network.x.profileURL(handle: "ana_b", postURL: nil) == "https://x.com/ana_b")
        #expect(Network.x.postURL(id: "1/../2", handle: "ana", given: nil) == nil)
        #expect(Network.x.profileURL(handle: "ana?x=1", postURL: nil) == nil)
        #expect(Network(manifestValue: nil) == .x, "manifests from before other networks were X's")
        #expect(Network(manifestValue: "pixelfed") == nil, "a network this build does not know gets no X links")
    }

    @Test func mastodonLinksTheGivenPageAndTheAccountsServer() {
        #expect(Network.mastodon.postURL(id: "9", handle: "ana", given: "https://example.social/@ana/9") == "https://example.social/@ana/9")
        #expect(Network.mastodon.postURL(id: "9", handle: "ana", given: "javascript:alert(1)") == nil)
        // A local account's profile is on the post's server; a remote one on its own.
        #expect(Network.mastodon.profileURL(handle: "ana", postURL: "https://example.social/@ana/9") == "https://example.social/@ana")
        #expect(Network.mastodon.profileURL(handle: "bo@other.host", postURL: nil) == "https://other.host/@bo")
        #expect(Network.mastodon.profileURL(handle: "ana", postURL: "https://evil@example.social/x") == nil)
        // A crafted acct gives no link rather than one to another host.
        #expect(Network.mastodon.profileURL(handle: "a@mastodon.social@evil.example", postURL: nil) == nil)
        #expect(Network.mastodon.profileURL(handle: "a@mastodon.social/@b#", postURL: nil) == nil)
    }

    @Test func blueskyLinksHandlesAndDIDs() {
        #expect(Network.bluesky.profileURL(handle: "a.bsky.social", postURL: nil) == "https://bsky.app/profile/a.bsky.social")
        #expect(Network.bluesky.profileURL(handle: "did:plc:abc", postURL: nil) == "https://bsky.app/profile/did:plc:abc")
        #expect(Network.bluesky.profileURL(handle: "a/b", postURL: nil) == nil)
        #expect(Network.allCases.map(\.displayName) == ["X", "Mastodon", "Bluesky"])
    }
}

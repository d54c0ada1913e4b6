import Testing
@testable import TileServer

/// The key a visitor's renders are counted under: an IPv4 address as it is, an IPv4
/// client on a dual-stack socket as that IPv4 address, and an IPv6 client as its /64,
/// which one host can move about in at will.
@Suite struct RenderClientTests {
    func key(_ forwarded: String) -> String { RenderClient.address(peer: nil, forwardedFor: [forwarded]) }

    @Test func addressesAreCountedByHostOrNetwork() {
        #expect(key("203.0.113.9") == "203.0.113.9")
        #expect(key("::ffff:203.0.113.9") == "203.0.113.9")
        #expect(key("2001:db8:a0b:12f0::1") == "2001:db8:a0b:12f0::/64")
        #expect(key("[2001:db8:a0b:12f0:ffff:1:2:3]") == "2001:db8:a0b:12f0::/64")
        // The last address is the trusted proxy's; earlier ones are the client's own say.
        #expect(RenderClient.address(peer: nil, forwardedFor: ["198.51.100.1, 203.0.113.9"]) == "203.0.113.9")
        #expect(RenderClient.address(peer: nil, forwardedFor: ["not an address"]) == "unknown")
    }
}

public import TweetModel

/// A post as deletions name it: its network and its id there. Ids alone are not
/// enough: an X id and a Mastodon status id can be the same digits.
public struct PostIdentity: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public var network: Network
    public var id: String

    public init(network: Network, id: String) {
        self.network = network
        self.id = id
    }

    /// The key of a manifest's post (`network` as the manifest spells it, absent for X).
    public init?(manifestNetwork: String?, id: String) {
        guard let network = Network(manifestValue: manifestNetwork) else { return nil }
        self.init(network: network, id: id)
    }

    public static func < (a: PostIdentity, b: PostIdentity) -> Bool { (a.network.rawValue, a.id) < (b.network.rawValue, b.id) }

    public var description: String { "\(network.rawValue):\(id)" }

    /// Reads what people type: `1234`, `x:1234`, `mastodon:1099…`, `at://did:…/app.bsky.feed.post/…`
    /// (a Bluesky URI names its network), with `defaultNetwork` for a bare id. Nil for an
    /// id no network uses: empty, over 512 bytes, or with spaces or control characters.
    public init?(argument: String, defaultNetwork: Network = .x) {
        var network = defaultNetwork
        var id = Substring(argument)
        if argument.hasPrefix("at://") {
            network = .bluesky
        } else if let colon = argument.firstIndex(of: ":"), let named = Network(rawValue: String(argument[..<colon])) {
            network = named
            id = argument[argument.index(after: colon)...]
        }
        guard !id.isEmpty, id.utf8.count <= 512,
              !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " })
        else { return nil }
        self.init(network: network, id: String(id))
    }
}

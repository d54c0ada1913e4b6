public import Foundation
public import TweetModel

/// One forgotten post, as the tombstone log keeps it: which post, when, and why.
/// No content: the log is what remains of a post after `forget`, and what stops an
/// old saved page, a `sync` or a stream replay from bringing it back.
public struct Tombstone: Sendable, Equatable, Codable {
    public var network: Network
    public var id: String
    public var forgottenAt: Date
    /// `deleted`, `suspended`, `protected`, `deactivated` (X's compliance reasons),
    /// `repost` (a repost of a forgotten post), `user`, or what the operator wrote.
    public var reason: String

    public init(key: PostIdentity, forgottenAt: Date, reason: String) {
        network = key.network
        id = key.id
        self.forgottenAt = forgottenAt
        self.reason = reason
    }

    public var key: PostIdentity { PostIdentity(network: network, id: id) }

    enum CodingKeys: String, CodingKey {
        case network, id, reason
        case forgottenAt = "forgotten_at"
    }
}

/// The account that posted a tweet.
public struct Author: Sendable, Codable, Hashable {
    /// The account's numeric id as a string (ids exceed 2^53, so never a Double).
    public let id: String
    /// The handle without `@` (v1.1 `screen_name`, v2 `username`); empty when a v2
    /// page was fetched without the `author_id` expansion.
    public let screenName: String
    /// The display name; empty when unknown.
    public let name: String
    /// The profile image URL exactly as the API gave it, usually the 48x48 `_normal` size.
    public let profileImageURL: String?

    public init(id: String, screenName: String, name: String, profileImageURL: String?) {
        self.id = id
        self.screenName = screenName
        self.name = name
        self.profileImageURL = profileImageURL
    }

    /// The 400x400 variant of the profile image, the largest square Twitter serves.
    ///
    /// The API hands out the 48x48 thumbnail, which is useless for a cache meant to
    /// display avatars. Some old accounts lack the 400x400 file, so fetchers should fall
    /// back to ``profileImageURL`` when this one is missing.
    public var avatarURL: String? {
        profileImageURL.map(TwimgURL.avatar400)
    }
}

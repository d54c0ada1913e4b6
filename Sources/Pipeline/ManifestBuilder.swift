import CacheCore
import Catalog
import BlobStore
import Foundation
import TweetModel

/// Turns a parsed post and the outcomes of its URLs into a manifest entry.
struct ManifestBuilder {
    /// Every URL the posts name, with what became of it.
    let outcomes: [String: ItemOutcome]
    var derived: [BlobHash: DeriveOutcome] = [:]

    /// A video served only as an HLS playlist (Bluesky): listed with why it is not cached.
    static func playlistRef(_ url: String?) -> MediaRef? {
        url.map { MediaRef(url: $0, sha256: nil, bytes: nil, contentType: nil, error: MediaError(
            code: "playlist_not_fetched",
            message: "an HLS playlist (a list of segments), not a video file: not fetched; its poster is", httpStatus: nil)) }
    }

    private func ref(_ url: String?) -> MediaRef? {
        guard let url else { return nil }
        guard let outcome = outcomes[url] else {
            return MediaRef(url: url, sha256: nil, bytes: nil, contentType: nil, error: nil)
        }
        return outcome.ref(url: url, derived: derived)
    }

    func entry(_ t: Tweet, query: String?, format: SourceFormat, source: String) -> ManifestTweet {
        let media = t.media.map { m -> ManifestTweet.Media in
            let still = ref(m.imageURL)
            var media = ManifestTweet.Media(
                id: m.id, type: m.type.rawValue, url: m.imageURL, sha256: still?.sha256, bytes: still?.bytes,
                contentType: still?.contentType, error: still?.error, width: still?.width ?? m.width,
                height: still?.height ?? m.height, altText: m.altText,
                video: m.videoIsPlaylist ? Self.playlistRef(m.videoURL) : ref(m.videoURL),
                thumbnails: still?.thumbnails, tiles: still?.tiles, deriveError: still?.deriveError)
            media.decodeWarning = still?.decodeWarning
            media.pdq = still?.pdq
            media.pdqQuality = still?.pdqQuality
            media.pdqDihedral = still?.pdqDihedral
            return media
        }
        let e = t.entities
        let entities = ManifestTweet.Entities(
            hashtags: e.hashtags.map { .init(start: $0.range.start, end: $0.range.end, tag: $0.tag) },
            cashtags: e.cashtags.map { .init(start: $0.range.start, end: $0.range.end, tag: $0.tag) },
            mentions: e.mentions.map { .init(start: $0.range.start, end: $0.range.end, username: $0.username, id: $0.id) },
            urls: e.urls.map {
                .init(start: $0.range.start, end: $0.range.end, url: $0.url, expandedURL: $0.expandedURL,
                      displayURL: $0.displayURL)
            },
            media: e.media.map { .init(start: $0.range.start, end: $0.range.end, mediaID: $0.mediaID) })
        // An avatar repeats in every post of its author and is never grouped as a
        // duplicate: its hash and quality, not the seven turned hashes (470 bytes a post).
        var avatar = ref(t.author.avatarURL)
        avatar?.pdqDihedral = nil
        return ManifestTweet(
            id: t.id, createdAt: t.createdAt, text: t.text, lang: t.lang,
            author: .init(id: t.author.id, screenName: t.author.screenName, name: t.author.name, avatar: avatar),
            entities: entities, media: media,
            referencedTweets: t.references.map { .init(type: $0.kind.rawValue, id: $0.id) },
            query: query, sourceFormat: format.rawValue, source: source,
            network: t.network.rawValue, url: t.url, sensitive: t.sensitive ? true : nil, spoilerText: t.spoilerText)
    }
}

/// The version printed by `--version` and stamped into manifests.
public enum TweetCacheVersion {
    public static let string = "0.1.0"
}

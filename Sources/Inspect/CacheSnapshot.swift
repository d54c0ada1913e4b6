import BlobStore
import Foundation
import Pipeline

/// A cache opened for reading back: its blobs, its index and its manifests, plus
/// which tweets use which blob (worked out once, used by every command).
///
/// Opening does not create a cache where there is none: a mistyped `--cache` should
/// say so, not leave an empty cache behind.
public struct CacheSnapshot: Sendable {
    public let root: URL
    public let store: BlobStore
    public let index: CacheIndex
    public let catalog: ManifestCatalog
    /// Every manifest reference to each blob, tweets before included tweets.
    public let references: [BlobHash: [ImageReference]]

    public init(root: URL) throws(InspectError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .cache("no cache at \(root.path)")
        }
        do {
            store = try BlobStore(root: root)
            index = try CacheIndex(store: store)
        } catch {
            throw .cache(error.description)
        }
        self.root = store.root
        catalog = ManifestCatalog.load(cacheRoot: store.root)
        references = Self.references(in: catalog)
    }

    public var derivedFiles: DerivedFiles { DerivedFiles(cacheRoot: root) }

    /// The strongest kind each referenced blob has (photo over video over avatar).
    public func kind(of hash: BlobHash) -> ImageKind {
        references[hash]?.map(\.kind).min() ?? .unreferenced
    }

    static func references(in catalog: ManifestCatalog) -> [BlobHash: [ImageReference]] {
        var result: [BlobHash: [ImageReference]] = [:]
        func add(_ sha: String?, _ reference: ImageReference) {
            guard let sha, let hash = BlobHash(hex: sha) else { return }
            result[hash, default: []].append(reference)
        }
        for tweet in catalog.tweets + catalog.includedTweets {
            let screen = tweet.author.screenName
            if let avatar = tweet.author.avatar {
                add(avatar.sha256, ImageReference(tweetID: tweet.id, screenName: screen, kind: .avatar, url: avatar.url,
                                                  position: nil, mediaID: nil, createdAt: tweet.createdAt, bytes: avatar.bytes))
            }
            for (i, media) in tweet.media.enumerated() {
                let kind: ImageKind = media.type == "photo" ? .photo : .video
                if let url = media.url {
                    add(media.sha256, ImageReference(tweetID: tweet.id, screenName: screen, kind: kind, url: url,
                                                     position: i + 1, mediaID: media.id, createdAt: tweet.createdAt,
                                                     bytes: media.bytes))
                }
                if let video = media.video {
                    add(video.sha256, ImageReference(tweetID: tweet.id, screenName: screen, kind: .video, url: video.url,
                                                     position: i + 1, mediaID: media.id, createdAt: tweet.createdAt,
                                                     bytes: video.bytes))
                }
            }
        }
        return result
    }
}

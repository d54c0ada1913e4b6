import Catalog
import BlobStore
import Foundation
import ObjectStore
import TweetModel
import Glibc

/// Where a forgotten post's bytes are: the manifests and saved pages holding it, the
/// local copies of its media, and the bucket's copies.
extension Forgetter {
    // MARK: - Finding

    func manifestNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: layout.manifestsURL.path)) ?? [])
            .filter(CacheKey.isManifestName).sorted()
    }

    /// The folder `search` saves its pages in.
    var resultsURL: URL { layout.root.appendingPathComponent("results", isDirectory: true) }
    /// Folders of raw pages inside the cache: `search`'s, and the inputs `demo` writes.
    /// `results/streams` holds `watch --stream`'s batches (JSON Lines).
    var pageFolders: [URL] {
        [resultsURL, resultsURL.appendingPathComponent("streams", isDirectory: true),
         layout.root.appendingPathComponent("demo", isDirectory: true)]
    }

    struct PageRewrite {
        var url: URL
        /// The page's size when it was read: read again to be rewritten, its bytes are
        /// not kept (ten thousand pages are a gigabyte).
        var size: Int
        var blanks: [Range<Int>]
    }

    /// The saved pages holding any of `keys`, with what to blank in each.
    func pagesHolding(_ keys: Set<PostIdentity>, problems: inout [String]) -> [PageRewrite] {
        var ids: [Network: Set<String>] = [:]
        for key in keys { ids[key.network, default: []].insert(key.id) }
        let everyID = Set(keys.map(\.id))
        var pages: [PageRewrite] = []
        for folder in pageFolders {
          let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { ($0.hasSuffix(".json") || $0.hasSuffix(".jsonl")) && !$0.hasPrefix(".") }.sorted()
          for name in names {
            // A page named by `search` says its network; another (the demo's inputs)
            // is looked at for any of the ids.
            let lines = name.hasSuffix(".jsonl")
            let network = lines ? nil : PageRedaction.network(ofPage: name)
            let wanted = network.map { ids[$0] ?? [] } ?? everyID
            guard !wanted.isEmpty else { continue }
            let url = folder.appendingPathComponent(name)
            guard let bytes = try? Data(contentsOf: url, options: .alwaysMapped) else {
                problems.append("\(url.path): cannot be read")
                continue
            }
            let redaction = PageRedaction(ids: wanted)
            var unparsed = false
            let blanks = bytes.withUnsafeBytes { raw -> [Range<Int>]? in
                guard redaction.mayHold(raw) else { return nil }
                guard let found = lines ? redaction.lineBlanks(raw) : redaction.blanks(raw) else {
                    unparsed = true
                    return nil
                }
                return found.posts > 0 ? JSONBlanking.normalized(found.blanks) : nil
            }
            // It may hold a forgotten post and is not JSON this reads: said, and the
            // forget stays marked under way.
            if unparsed { problems.append("\(url.path): names a forgotten id but is not JSON that can be rewritten") }
            if let blanks, !blanks.isEmpty { pages.append(PageRewrite(url: url, size: bytes.count, blanks: blanks)) }
          }
        }
        return pages
    }

    /// The URLs of the posts' photos and videos, and the avatar of each author none of
    /// whose posts stays.
    func removedURLs(_ posts: [ManifestTweet], removing: Set<PostIdentity>, catalog: PostCatalog) -> Set<String> {
        var urls = Set<String>()
        var authors: [String: String] = [:]  // author id → avatar URL
        for post in posts {
            for media in post.media {
                if let url = media.url { urls.insert(url) }
                if let url = media.video?.url { urls.insert(url) }
            }
            if let avatar = post.author.avatar?.url, !post.author.id.isEmpty { authors[post.author.id] = avatar }
        }
        for (author, avatar) in authors {
            let left = ((try? catalog.postKeys(byUserID: author)) ?? []).filter { !removing.contains($0) }
            if left.isEmpty { urls.insert(avatar) }
        }
        return urls
    }

    // MARK: - Removing

    /// The bytes of a blob and its derived files on disk.
    func bytes(of hash: BlobHash, store: BlobStore?) -> Int {
        guard let store else { return 0 }
        var total = 0
        var info = stat()
        if stat(store.path(for: hash).path, &info) == 0 { total += Int(info.st_size) }
        return total + store.derivedEntries(of: hash).reduce(0) { $0 + $1.bytes }
    }

    /// The copies of a bucket's objects kept under `objects/` (whole, or ranges
    /// named `path@offset+length`).
    func removeLocalCopies(of hash: BlobHash) {
        let objects = layout.objectsURL.path
        for folder in ["\(CacheLayout.blobsFolder)/\(hash.shard)", CacheLayout.derivedShard(hash)] {
            let path = objects + "/" + folder
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] where name.hasPrefix(hash.hex) {
                try? FileManager.default.removeItem(atPath: path + "/" + name)
            }
        }
    }

    /// Removes files a killed `forget` or upload was writing (a copy of a manifest or
    /// page without the posts or paths, never the only copy of anything), and a
    /// compressed manifest's JSON a killed reader left named (`.expand-*`: it may
    /// hold the posts being forgotten).
    func sweepTemporaries() {
        for folder in [layout.manifestsURL] + pageFolders {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            where ((name.hasPrefix(".forget-") || name.hasPrefix(".bucket-")) && name.hasSuffix(".tmp")) || name.hasPrefix(".expand-") {
                unlink(folder.appendingPathComponent(name).path)
            }
        }
    }

    func updateBucket(_ storage: any CacheStorage, manifests: [String], unused: [BlobHash],
                              posts: [ManifestTweet], report: inout Report) async throws(ForgetError) {
        for name in manifests {
            let key = CacheLayout.manifest(name)
            do {
                // Only the runs the bucket shares: a local run stays local.
                guard try await storage.size(key) != nil else { continue }
                // Deleted first: the copy without the posts has the same size, which a
                // store may take for "already there".
                try await storage.delete(key)
                _ = try await BucketManifest.store(layout.manifestsURL.appendingPathComponent(name), as: key, in: storage)
                report.bucketManifestsRewritten += 1
            } catch {
                throw .bucket("\(key): \(error.description)")
            }
        }
        // The media's objects: the names the manifests gave them, and whatever else
        // the bucket holds under their hashes.
        var paths = Set<String>()
        let unusedSet = Set(unused)
        for post in posts {
            for media in post.media {
                guard let hex = media.sha256, let hash = BlobHash(hex: hex), unusedSet.contains(hash) else { continue }
                for thumbnail in media.thumbnails ?? [] { paths.insert(thumbnail.path) }
                if let pack = media.tiles?.pack { paths.insert(pack) }
            }
        }
        for hash in unused {
            paths.insert(CacheLayout.blob(hash))
            paths.insert(CacheLayout.pack(hash))
            do {
                for object in try await storage.list(CacheLayout.derivedShard(hash) + "/")
                where object.key.hasPrefix(CacheLayout.derivedPrefix(hash)) {
                    paths.insert(object.key)
                }
            } catch {
                throw .bucket("listing \(CacheLayout.derivedShard(hash)): \(error.description)")
            }
        }
        for path in paths.sorted() where CacheKey(path: path)?.isShared == true {
            do {
                guard try await storage.size(path) != nil else { continue }
                try await storage.delete(path)
                report.bucketObjectsDeleted += 1
            } catch {
                throw .bucket("\(path): \(error.description)")
            }
        }
    }
}

import Catalog
public import BlobStore
public import Foundation
public import ObjectStore

/// Brings a machine's view of a shared bucket up to date (`tweetcache sync`): every
/// run manifest in the bucket that this cache lacks is copied into its
/// `manifests/` (what the viewer, `serve`'s catalog and IIIF Presentation read),
/// and the URLs and originals those manifests name are recorded in the local
/// index (URL → SHA-256), so `ls`, `info` and later fetches know them.
///
/// Only manifests are copied: originals, packs and thumbnails stay in the bucket
/// and are read on demand through the bounded read-through cache.
public struct BucketSync: Sendable {
    public let client: S3Client
    public let layout: CacheLayout

    public init(client: S3Client, cacheRoot: URL) {
        self.client = client
        layout = CacheLayout(root: cacheRoot)
    }

    public struct Report: Sendable, Equatable, Codable {
        /// Manifests in the bucket.
        public var listed = 0
        /// Copied this time.
        public var copied = 0
        /// URLs recorded in the index.
        public var urls = 0
        /// Manifests that could not be read: key and reason.
        public var failed: [String: String] = [:]
    }

    /// The largest manifest read from a bucket (a 10,000-tweet run's is about 20 MB).
    public static let maxManifestBytes = 256 << 20

    public func run() async throws(S3Error) -> Report {
        var report = Report()
        let objects = try await client.list(CacheLayout.manifestsFolder + "/")
            .filter { $0.key.hasSuffix(".json") && !$0.key.dropFirst(CacheLayout.manifestsFolder.count + 1).contains("/") }
        report.listed = objects.count
        try? FileManager.default.createDirectory(at: layout.manifestsURL, withIntermediateDirectories: true)
        // Each new run goes into the catalog as it is copied; the runs it read before
        // are not read again.
        let catalog = try? PostCatalog(cacheRoot: layout.root)
        for object in objects.sorted(by: { $0.key < $1.key }) {
            let local = layout.url(object.key)
            guard !FileManager.default.fileExists(atPath: local.path) else { continue }
            do {
                guard let bytes = try await client.get(object.key, maxBytes: Self.maxManifestBytes) else { continue }
                // Read before it is kept: a file that is not a manifest stays out of the catalog.
                let manifest = try Manifest.decode(Data(bytes))
                try Data(bytes).write(to: local, options: .atomic)
                _ = try? catalog?.add(manifestNamed: local.lastPathComponent)
                report.urls += recordInIndex([manifest])
                report.copied += 1
            } catch {
                report.failed[object.key] = "\(error)"
            }
        }
        return report
    }

    /// Records each fetched URL of `manifests` with its hash, unless this machine's
    /// index already maps the URL (what it fetched itself is not overwritten by what
    /// a bucket says); returns how many.
    private func recordInIndex(_ manifests: [Manifest]) -> Int {
        guard !manifests.isEmpty, let index = try? CacheIndex(path: layout.indexURL) else { return 0 }
        var urls: [URLRecord] = []
        var blobs: [BlobHash: BlobRecord] = [:]
        func add(url: String?, sha256: String?, bytes: Int?, contentType: String?, width: Int?, height: Int?, at date: Date) {
            guard let url, let hex = sha256, let hash = BlobHash(hex: hex), let size = bytes else { return }
            urls.append(URLRecord(url: url, hash: hash, size: size, contentType: contentType, httpStatus: 200,
                                  fetchedAt: date, lastAccess: date))
            blobs[hash] = BlobRecord(hash: hash, size: size, contentType: contentType, width: width, height: height,
                                     createdAt: date, lastAccess: date)
        }
        for manifest in manifests {
            for tweet in manifest.tweets + manifest.includedTweets {
                if let a = tweet.author.avatar {
                    add(url: a.url, sha256: a.sha256, bytes: a.bytes, contentType: a.contentType, width: a.width, height: a.height,
                        at: manifest.generatedAt)
                }
                for m in tweet.media {
                    add(url: m.url, sha256: m.sha256, bytes: m.bytes, contentType: m.contentType, width: m.width, height: m.height,
                        at: manifest.generatedAt)
                    if let v = m.video {
                        add(url: v.url, sha256: v.sha256, bytes: v.bytes, contentType: v.contentType, width: nil, height: nil,
                            at: manifest.generatedAt)
                    }
                }
            }
        }
        let known = (try? index.lookup(urls: urls.map(\.url))) ?? [:]
        urls.removeAll { known[$0.url] != nil }
        let named = Set(urls.map(\.hash))
        let known2 = (try? index.blobs(Array(named))) ?? [:]
        let newBlobs = blobs.values.filter { named.contains($0.hash) && known2[$0.hash] == nil }
        do { try index.record(urls, blobs: newBlobs) } catch { return 0 }
        return urls.count
    }
}

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
    public let storage: any CacheStorage
    public let layout: CacheLayout

    public init(storage: any CacheStorage, cacheRoot: URL) {
        self.storage = storage
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

    public func run() async throws(StoreError) -> Report {
        var report = Report()
        let objects = try await storage.list(CacheLayout.manifestsFolder + "/")
            .filter { $0.key.hasSuffix(".json") && !$0.key.dropFirst(CacheLayout.manifestsFolder.count + 1).contains("/") }
        report.listed = objects.count
        try? FileManager.default.createDirectory(at: layout.manifestsURL, withIntermediateDirectories: true)
        let index = try? CacheIndex(path: layout.indexURL)
        let missing = objects.sorted(by: { $0.key < $1.key }).filter { !FileManager.default.fileExists(atPath: layout.url($0.key).path) }
        // The catalog reads each run on a thread of its own while the next is copied:
        // into an empty catalog (a new machine) that is one read without its indexes,
        // made at the end; the runs it read before are not read again. Should it fail,
        // nothing is lost: the next reader's refresh reads them.
        let arrivals = ManifestArrivals()
        defer { arrivals.finish() }  // on any way out, so the catalog's thread ends
        let cataloged = missing.isEmpty ? nil : Self.readIntoCatalog(arrivals, root: layout.root, bytes: missing.reduce(0) { $0 + $1.size })
        for object in missing {
            let local = layout.url(object.key)
            // Copied to a hidden name a chunk at a time (a million-post run's manifest
            // is gigabytes), read before it is kept (a file that is not a manifest stays
            // out), then renamed into place.
            let temporary = layout.manifestsURL.appendingPathComponent(".sync-\(UInt64.random(in: .min ... .max)).json")
            defer { try? FileManager.default.removeItem(at: temporary) }
            do {
                guard try await storage.download(object.key, to: temporary) else { continue }
                let manifest = try ManifestFile(url: temporary)
                let urls = index.map { recordInIndex(manifest, index: $0) } ?? 0
                try FileManager.default.moveItem(at: temporary, to: local)
                arrivals.put(local.lastPathComponent)
                report.urls += urls
                report.copied += 1
            } catch {
                report.failed[object.key] = "\(error)"
            }
        }
        arrivals.finish()
        await cataloged?.value
        return report
    }

    /// Starts a thread that reads the names `arrivals` gives into the catalog (blocking
    /// work, kept off the tasks' threads); the task ends when it has.
    private static func readIntoCatalog(_ arrivals: ManifestArrivals, root: URL, bytes: Int) -> Task<Void, Never> {
        Task {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                let thread = Thread {
                    if let catalog = try? PostCatalog(cacheRoot: root) {
                        _ = try? catalog.add(manifestsArriving: arrivals.take, bytes: bytes)
                    }
                    // Whatever is left (the catalog could not open) is taken, so nothing waits.
                    while arrivals.take() != nil {}
                    done.resume()
                }
                thread.name = "catalog"
                thread.start()
            }
        }
    }

    /// Records each fetched URL of `manifest` with its hash, unless this machine's
    /// index already maps the URL (what it fetched itself is not overwritten by what
    /// a bucket says), a batch of posts at a time; returns how many.
    private func recordInIndex(_ manifest: ManifestFile, index: CacheIndex) -> Int {
        var urls: [String: URLRecord] = [:]
        var blobs: [BlobHash: BlobRecord] = [:]
        var contentHashes: [(path: String, sha256: BlobHash)] = []
        var recorded = 0
        let date = manifest.header.generatedAt
        /// What the thumbnails hash to, as their maker recorded: what serving checks
        /// the bucket's copies against.
        func add(thumbnails: [FetchedObjects.Thumbnail]?) {
            for thumbnail in thumbnails ?? [] where CacheLayout.isSharedObject(thumbnail.path) {
                if let hash = thumbnail.sha256.flatMap(BlobHash.init(hex:)) { contentHashes.append((thumbnail.path, hash)) }
            }
        }
        func add(url: String?, sha256: String?, bytes: Int?, contentType: String?, width: Int?, height: Int?) {
            guard let url, let hex = sha256, let hash = BlobHash(hex: hex), let size = bytes else { return }
            urls[url] = URLRecord(url: url, hash: hash, size: size, contentType: contentType, httpStatus: 200,
                                  fetchedAt: date, lastAccess: date)
            blobs[hash] = BlobRecord(hash: hash, size: size, contentType: contentType, width: width, height: height,
                                     createdAt: date, lastAccess: date)
        }
        func flush() {
            defer { urls = [:]; blobs = [:]; contentHashes = [] }
            try? index.recordContentHashes(contentHashes)
            guard !urls.isEmpty else { return }
            let known = (try? index.lookup(urls: Array(urls.keys))) ?? [:]
            let fresh = urls.values.filter { known[$0.url] == nil }
            let named = Set(fresh.map(\.hash))
            let knownBlobs = (try? index.blobs(Array(named))) ?? [:]
            let newBlobs = blobs.values.filter { named.contains($0.hash) && knownBlobs[$0.hash] == nil }
            do {
                try index.record(Array(fresh), blobs: newBlobs)
                recorded += fresh.count
            } catch {}
        }
        func record(_ post: FetchedObjects) {
            if let a = post.author.avatar {
                add(url: a.url, sha256: a.sha256, bytes: a.bytes, contentType: a.contentType, width: a.width, height: a.height)
                add(thumbnails: a.thumbnails)
            }
            for m in post.media {
                add(url: m.url, sha256: m.sha256, bytes: m.bytes, contentType: m.contentType, width: m.width, height: m.height)
                add(thumbnails: m.thumbnails)
                if let v = m.video {
                    add(thumbnails: v.thumbnails)
                    add(url: v.url, sha256: v.sha256, bytes: v.bytes, contentType: v.contentType, width: nil, height: nil)
                }
            }
        }
        // A batch of posts decoded on every core, then recorded in order, its pages given back.
        var pending: [Range<Int>] = []
        func decodeBatch() {
            let ranges = pending
            pending.removeAll(keepingCapacity: true)
            guard let first = ranges.first, let last = ranges.last else { return }
            // A post that cannot be read names no URL; the catalog reports it.
            for case let .success(post) in manifest.read(at: ranges, { json in try json.withUnsafeBytes(FetchedObjects.read) }) {
                record(post)
            }
            manifest.release(first.lowerBound..<last.upperBound)
            if urls.count >= 10_000 { flush() }
        }
        try? manifest.forEachPost { _, range in
            pending.append(range)
            if pending.count == 2_000 { decodeBatch() }
        }
        decodeBatch()
        flush()
        return recorded
    }
}

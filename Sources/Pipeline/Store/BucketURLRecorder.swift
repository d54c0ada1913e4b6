import Catalog
import BlobStore
import Foundation

/// Records in the local index each URL a bucket's runs fetched, with its hash and
/// what its thumbnails hash to (what serving checks the bucket's copies against),
/// unless the index already maps the URL: what this machine fetched itself is not
/// overwritten by what a bucket says.
///
/// `sync` hands it each run's posts as the catalog reads them (a ``FetchedObjectsObserver``:
/// one decode of a million posts for both), and reads a run itself
/// (``record(_:name:)``) only when the catalog did not read it to its end. A run's
/// URLs are owed from before its manifest is put in place until they are in the
/// index: a marker file beside it (`manifests/.<name>.urls`) says so, so a sync
/// killed in between records them the next time.
final class BucketURLRecorder: FetchedObjectsObserver, @unchecked Sendable {
    let index: CacheIndex
    let layout: CacheLayout
    private let lock = NSLock()
    // Guarded by `lock`.
    private var urls: [String: URLRecord] = [:]
    private var blobs: [BlobHash: BlobRecord] = [:]
    private var contentHashes: [(path: String, sha256: BlobHash)] = []
    private var recordedCount = 0
    /// Set when the index could not be asked or written since the last run finished.
    private var indexFailed = false
    /// The URLs and thumbnails met so far, each taken once: a bucket's runs name the
    /// same avatars and photos over and over, and asking the index about each again
    /// cost a million-post sync 27 s (each new one is asked about once, as before).
    private var seenURLs = KeySet()
    private var seenThumbnails = KeySet()

    init(index: CacheIndex, layout: CacheLayout) {
        self.index = index
        self.layout = layout
    }

    /// URLs recorded so far.
    var recorded: Int { lock.withLock { recordedCount } }

    // MARK: - What is owed

    /// The marker that says `name`'s URLs are not yet recorded.
    func marker(_ name: String) -> URL { layout.manifestsURL.appendingPathComponent(".\(name).urls") }

    /// Notes that `name`'s URLs are owed: before its manifest is put in place.
    func owe(_ name: String) throws {
        let path = marker(name).path
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }

    /// Names of runs whose URLs are owed and whose manifest is in place; markers of
    /// manifests that never arrived go.
    func owed() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: layout.manifestsURL.path)) ?? []
        return names.sorted().compactMap { file -> String? in
            guard file.hasPrefix("."), file.hasSuffix(".urls") else { return nil }
            let name = String(file.dropFirst().dropLast(5))
            guard CacheKey.isManifestName(name) else { return nil }
            guard FileManager.default.fileExists(atPath: layout.manifestsURL.appendingPathComponent(name).path) else {
                try? FileManager.default.removeItem(at: marker(name))
                return nil
            }
            return name
        }
    }

    /// Reads `manifest` (named `name`) itself, a batch of posts at a time, on every
    /// core, and records its URLs: for a run the catalog did not read to its end.
    func record(_ manifest: ManifestFile, name: String) {
        var pending: [Range<Int>] = []
        func decodeBatch() {
            let ranges = pending
            pending.removeAll(keepingCapacity: true)
            guard let first = ranges.first, let last = ranges.last else { return }
            // A post that cannot be read names no URL; the catalog reports it.
            let posts = manifest.read(at: ranges) { json in try json.withUnsafeBytes(FetchedObjects.read) }
            read(posts.compactMap { try? $0.get() }, ofRun: name, header: manifest.header)
            manifest.release(first.lowerBound..<last.upperBound)
        }
        try? manifest.forEachPost { _, range in
            pending.append(range)
            if pending.count == 2_000 { decodeBatch() }
        }
        decodeBatch()
        finished(run: name)
    }

    // MARK: - FetchedObjectsObserver

    func read(_ objects: [FetchedObjects], ofRun name: String, header: ManifestFile.Header) {
        lock.withLock {
            let date = header.generatedAt
            for post in objects { add(post, date: date) }
            if urls.count >= 10_000 { flush() }
        }
    }

    /// The run's URLs are in the index: its marker goes, unless a write to the index
    /// failed since the run began (then the next sync reads the run again for them).
    func finished(run name: String) {
        let recorded = lock.withLock {
            flush()
            defer { indexFailed = false }
            return !indexFailed
        }
        if recorded { try? FileManager.default.removeItem(at: marker(name)) }
    }

    // MARK: - Recording

    private func add(_ post: FetchedObjects, date: Date) {
        if let a = post.author.avatar {
            add(url: a.url, sha256: a.sha256, bytes: a.bytes, contentType: a.contentType, width: a.width, height: a.height, date: date)
            add(thumbnails: a.thumbnails)
        }
        for m in post.media {
            add(url: m.url, sha256: m.sha256, bytes: m.bytes, contentType: m.contentType, width: m.width, height: m.height, date: date)
            add(thumbnails: m.thumbnails)
            if let v = m.video {
                add(thumbnails: v.thumbnails)
                add(url: v.url, sha256: v.sha256, bytes: v.bytes, contentType: v.contentType, width: nil, height: nil, date: date)
            }
        }
    }

    /// What the thumbnails hash to, as their maker recorded.
    private func add(thumbnails: [FetchedObjects.Thumbnail]?) {
        for thumbnail in thumbnails ?? [] {
            guard let hash = thumbnail.sha256.flatMap(BlobHash.init(hex:)), seenThumbnails.insert(hash: thumbnail.path.hashValue),
                  CacheKey(path: thumbnail.path)?.isShared == true
            else { continue }
            contentHashes.append((thumbnail.path, hash))
        }
    }

    private func add(url: String?, sha256: String?, bytes: Int?, contentType: String?, width: Int?, height: Int?, date: Date) {
        guard let url, let hex = sha256, let hash = BlobHash(hex: hex), let size = bytes,
              seenURLs.insert(hash: url.hashValue) else { return }
        urls[url] = URLRecord(url: url, hash: hash, size: size, contentType: contentType, httpStatus: 200,
                              fetchedAt: date, lastAccess: date)
        blobs[hash] = BlobRecord(hash: hash, size: size, contentType: contentType, width: width, height: height,
                                 createdAt: date, lastAccess: date)
    }

    /// Writes what was gathered: URLs the index lacks, and their blobs it lacks.
    private func flush() {
        defer { urls = [:]; blobs = [:]; contentHashes = [] }
        do {
            try index.recordContentHashes(contentHashes)
            guard !urls.isEmpty else { return }
            // Not knowing what the index holds is not taken as its holding nothing:
            // this machine's own rows are never overwritten.
            let known = try index.lookup(urls: Array(urls.keys))
            let fresh = urls.values.filter { known[$0.url] == nil }
            let named = Set(fresh.map(\.hash))
            let knownBlobs = try index.blobs(Array(named))
            let newBlobs = blobs.values.filter { named.contains($0.hash) && knownBlobs[$0.hash] == nil }
            try index.record(Array(fresh), blobs: newBlobs)
            recordedCount += fresh.count
        } catch {
            // What this flush held is not in the index: met again (a run read anew for
            // its marker), it is asked about again, not skipped as seen.
            indexFailed = true
            seenURLs = KeySet()
            seenThumbnails = KeySet()
        }
    }
}

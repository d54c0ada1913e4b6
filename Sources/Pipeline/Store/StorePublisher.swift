import Catalog
import MediaFetch
public import BlobStore
public import Foundation
public import ObjectStore
import MediaTypes
import Synchronization

/// Puts what a run cached into object storage: every original, pack and
/// thumbnail its manifest names, then the manifest itself, under the same
/// cache-relative paths the local cache uses (``CacheLayout``).
///
/// Needs no coordination with other machines: every object is named by content
/// (or, for the manifest, by time, host and a random tag), each PUT says
/// `If-None-Match: *`, and the store checks the body against the SHA-256 sent
/// with it. An object that fails is recorded as a failure with role `store` and
/// the run goes on; the manifest is uploaded only when everything it names is
/// in the bucket, so another machine never syncs a run whose files are missing.
/// Running the same fetch again uploads what is still missing.
public struct StorePublisher: Sendable {
    public let storage: any CacheStorage
    public let layout: CacheLayout
    /// PUTs in flight at once.
    public var concurrency = 16

    /// Publishes the cache `layout` describes (``Cache/layout``) to `storage`.
    public init(storage: any CacheStorage, layout: CacheLayout) {
        self.storage = storage
        self.layout = layout
    }

    /// A tag for manifest names that no other machine or run picks: the host name
    /// (as key-safe characters) and 64 random bits.
    public static func manifestTag(host: String = ProcessInfo.processInfo.hostName) -> String {
        let safe = String(host.lowercased().unicodeScalars.map { scalar -> Character in
            let c = Character(scalar)
            return c.isASCII && (c.isLetter || c.isNumber || c == "-") ? c : "-"
        }.prefix(40))
        let random = String(UInt64.random(in: .min ... .max), radix: 16)
        return "\(safe.isEmpty ? "host" : safe)-\(String(repeating: "0", count: 16 - random.count))\(random)"
    }

    /// One object to put: where it is locally and its key, with its SHA-256 when the
    /// name already is it (originals).
    struct Upload: Hashable, Sendable {
        var path: String
        var sha256: String?
    }

    /// Every file that `tweets` name (their authors' avatars, their media), once each.
    static func uploads(of tweets: [ManifestTweet]) -> [Upload] {
        var seen = Set<String>()
        var list: [Upload] = []
        func add(_ path: String, _ sha256: String? = nil) {
            // Only the shapes CacheLayout names: a manifest may come from a stranger's bucket.
            guard CacheKey(path: path)?.isShared == true else { return }
            if seen.insert(path).inserted { list.append(Upload(path: path, sha256: sha256)) }
        }
        func add(sha256: String?, thumbnails: [ThumbnailRef]?, tiles: TileRefs?) {
            if let hex = sha256, let hash = BlobHash(hex: hex) { add(CacheLayout.blob(hash), hash.hex) }
            for thumbnail in thumbnails ?? [] { add(thumbnail.path) }
            if let pack = tiles?.pack { add(pack) }
        }
        for tweet in tweets {
            if let avatar = tweet.author.avatar { add(sha256: avatar.sha256, thumbnails: avatar.thumbnails, tiles: avatar.tiles) }
            for media in tweet.media {
                add(sha256: media.sha256, thumbnails: media.thumbnails, tiles: media.tiles)
                if let video = media.video { add(sha256: video.sha256, thumbnails: video.thumbnails, tiles: video.tiles) }
            }
        }
        return list
    }

    /// The thumbnails `post` names (its author's avatar's, its media's), for the
    /// hashes their makers recorded.
    static func thumbnails(of post: ManifestTweet) -> [ThumbnailRef] {
        var list = post.author.avatar?.thumbnails ?? []
        for media in post.media {
            list += media.thumbnails ?? []
            list += media.video?.thumbnails ?? []
        }
        return list.filter { CacheKey(path: $0.path)?.isShared == true }
    }

    /// A run's publishing: the ``RunPublisher`` a run is given.
    public func session() -> Session { Session(publisher: self) }

    /// Uploads each batch's files as the run writes it, then the manifest when every
    /// file it names is in the bucket.
    public actor Session: RunPublisher {
        let publisher: StorePublisher
        private var summary: StoreSummary
        private var failures: [Manifest.Failure] = []
        /// Found already there (412): checked again just before the manifest names them.
        private var found: [Upload] = []
        /// Paths this run has put, recently: a hot avatar is put once, not per batch.
        private var recent = RecentCache<String, Bool>(capacity: 65_536)
        private var lease: String?
        /// Renews the lease while the run lives (``StoreMaintenance/leaseRenewal``).
        private var renewal: Task<Void, Never>?
        private let outage = Outage()

        init(publisher: StorePublisher) {
            self.publisher = publisher
            summary = StoreSummary(location: publisher.storage.address)
        }

        public func begin(run: String) async {
            // While this lease exists, `gc --store` deletes nothing: an object this run
            // finds already there (412) may be one no manifest names yet.
            let lease = CacheLayout.leasesFolder + "/" + run
            self.lease = lease
            let storage = publisher.storage
            _ = try? await storage.store(lease, bytes: Array("{}".utf8), sha256: nil, contentType: "application/json", replace: true)
            // Renewed every minute, so it holds gc back only while this run is alive: a run
            // killed stops renewing, and its lease expires minutes later.
            renewal = Task.detached {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(StoreMaintenance.leaseRenewal))
                    guard !Task.isCancelled else { return }
                    _ = try? await storage.store(lease, bytes: Array("{}".utf8), sha256: nil, contentType: "application/json",
                                                 replace: true)
                }
            }
        }

        public func publish(_ posts: [ManifestTweet]) async {
            let uploads = StorePublisher.uploads(of: posts).filter { recent.get($0.path) == nil }
            for upload in uploads { recent.set(upload.path, true) }
            let publisher = self.publisher, outage = self.outage
            var results: [(Upload, Result<(PutOutcome, Int), StoreError>)] = []
            await concurrently(uploads, width: publisher.concurrency, { upload in
                (upload, await publisher.put(upload, outage: outage))
            }) { upload, result in
                results.append((upload, result))
            }
            for (upload, result) in results { tally(upload, result) }
        }

        private func tally(_ upload: Upload, _ result: Result<(PutOutcome, Int), StoreError>) {
            switch result {
            case let .success((.stored, bytes)):
                summary.uploaded += 1
                summary.bytesUploaded += bytes
            case .success((.alreadyStored, _)):
                summary.alreadyStored += 1
                found.append(upload)
            case let .success((.replaced, bytes)):
                summary.replaced = (summary.replaced ?? 0) + 1
                summary.bytesUploaded += bytes
            case let .failure(error):
                summary.failed += 1
                failures.append(publisher.failure(upload.path, error))
            }
        }

        public func finishObjects() async -> (StoreSummary, [Manifest.Failure]) {
            // What was found already there is checked again just before the manifest
            // names it: a gc that started before the lease may have taken it since.
            if summary.failed == 0 {
                for upload in found where (try? await publisher.storage.size(upload.path)) == .some(nil) {
                    switch await publisher.put(upload, outage: outage) {
                    case let .success((_, bytes)):
                        summary.uploaded += 1
                        summary.alreadyStored -= 1
                        summary.bytesUploaded += bytes
                    case let .failure(error):
                        summary.failed += 1
                        failures.append(publisher.failure(upload.path, error))
                    }
                }
            }
            found = []
            return (summary, failures.sorted { $0.url < $1.url })
        }

        public func publishManifest(file: URL, name: String) async -> Manifest.Failure? {
            let key = CacheLayout.manifest(name)
            do {
                _ = try await BucketManifest.store(file, as: key, in: publisher.storage)
                return nil
            } catch {
                return publisher.failure(key, error)
            }
        }

        public func end() async {
            renewal?.cancel()
            renewal = nil
            if let lease { try? await publisher.storage.delete(lease) }
        }
    }

    func failure(_ path: String, _ error: StoreError) -> Manifest.Failure {
        Manifest.Failure(url: storage.address + "/" + path, role: "store",
                         error: MediaError(code: error.code, message: error.description))
    }

    /// Once the store has not answered one upload through all its retries, the
    /// uploads after it fail at once with the same reason instead of each waiting
    /// out its own retries: the run ends in seconds, and its re-run uploads them.
    final class Outage: Sendable {
        private let error = Mutex<StoreError?>(nil)
        var current: StoreError? { error.withLock { $0 } }
        func record(_ failure: StoreError) {
            if case .unreachable = failure { error.withLock { $0 = $0 ?? failure } }
        }
    }

    func put(_ upload: Upload, outage: Outage) async -> Result<(PutOutcome, Int), StoreError> {
        if let down = outage.current { return .failure(down) }
        let file = layout.url(upload.path)
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? -1
        guard size >= 0 else {
            return .failure(.invalidLocation("\(upload.path) is named by the manifest but not in the local cache"))
        }
        do {
            // Put-if-absent, verified: "already there" is trusted only on the store's
            // own evidence that it holds these bytes, else they are put back.
            let outcome = try await storage.store(upload.path, file: file, sha256: upload.sha256,
                                                  contentType: Self.contentType(upload.path, file: file))
            return .success((outcome, size))
        } catch {
            outage.record(error)
            return .failure(error)
        }
    }

    /// The type an object is stored with, so a bucket served as a website (or
    /// looked at in a console) says what it holds: an original's from its first
    /// bytes (never `text/html`: a stored page must not run as the bucket's
    /// script), a pack's its own (docs/pack-format.md).
    static func contentType(_ path: String, file: URL? = nil) -> String {
        switch CacheKey(path: path) {
        case .thumbnail(_, _, .jpeg): return "image/jpeg"
        case .thumbnail(_, _, .png): return "image/png"
        case let .manifest(name), let .partialManifest(name):
            return name.hasSuffix(".zst") ? "application/zstd" : "application/json"
        case .lease: return "application/json"
        case .pack: return packContentType
        case .original: break
        default: return "application/octet-stream"
        }
        if let file,
           let head = FileHandle(forReadingAtPath: file.path).flatMap({ try? $0.read(upToCount: ContentKind.sniffLength) }) {
            let kind = ContentKind.sniff([UInt8](head))
            return kind == .html ? ContentKind.unknown.mimeType : kind.mimeType
        }
        return "application/octet-stream"
    }

    /// A pyramid pack's media type (docs/pack-format.md).
    public static let packContentType = "application/vnd.tweetcache.pyramid-pack"
}

import Catalog
public import BlobStore
public import Foundation
public import ObjectStore
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
    public let client: S3Client
    public let layout: CacheLayout
    /// PUTs in flight at once.
    public var concurrency = 16
    /// Files larger than this go up in parts (multipart upload).
    public var partSize = 8 << 20

    public init(client: S3Client, cacheRoot: URL) {
        self.client = client
        layout = CacheLayout(root: cacheRoot)
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

    /// Every file of the local cache that `manifest` names, once each.
    static func uploads(of manifest: Manifest) -> [Upload] { uploads(of: manifest.tweets + manifest.includedTweets) }

    /// Every file that `tweets` name (their authors' avatars, their media), once each.
    static func uploads(of tweets: [ManifestTweet]) -> [Upload] {
        var seen = Set<String>()
        var list: [Upload] = []
        func add(_ path: String, _ sha256: String? = nil) {
            // Only the shapes CacheLayout names: a manifest may come from a stranger's bucket.
            guard CacheLayout.isSharedObject(path) else { return }
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

    /// Uploads what `manifest` names, records the outcome in its summary (and any
    /// failure in its failures), uploads the manifest when nothing failed, and
    /// rewrites the local copy at `manifestURL` with the outcome.
    public func publish(_ manifest: inout Manifest, manifestURL: URL,
                        progress: (@Sendable (Int, Int) -> Void)? = nil) async -> StoreSummary {
        var summary = StoreSummary(location: client.location.description)
        let uploads = Self.uploads(of: manifest)
        let name = manifestURL.lastPathComponent
        // While this lease exists, `gc --store` deletes nothing: an object this run
        // finds already there (412) may be one no manifest names yet.
        let lease = CacheLayout.leasesFolder + "/" + name
        _ = try? await client.put(lease, bytes: Array("{}".utf8), contentType: "application/json")
        var found: [Upload] = []
        var failures: [Manifest.Failure] = []
        let outage = Outage()
        var done = 0
        await concurrently(uploads, width: concurrency, { upload in (upload, await put(upload, outage: outage)) }) { upload, result in
            done += 1
            progress?(done, uploads.count)
            switch result {
            case let .success((.stored, bytes)):
                summary.uploaded += 1
                summary.bytesUploaded += bytes
            case .success((.alreadyStored, _)):
                summary.alreadyStored += 1
                found.append(upload)
            case let .failure(error):
                summary.failed += 1
                failures.append(Manifest.Failure(
                    url: client.location.description + "/" + upload.path, role: "store",
                    error: MediaError(code: error.code, message: error.description)))
            }
        }
        // What was found already there is checked again just before the manifest names
        // it: a gc that started before the lease may have taken it since.
        if summary.failed == 0 {
            for upload in found where (try? await client.size(upload.path)) == .some(nil) {
                switch await put(upload, outage: outage) {
                case let .success((_, bytes)):
                    summary.uploaded += 1
                    summary.alreadyStored -= 1
                    summary.bytesUploaded += bytes
                case let .failure(error):
                    summary.failed += 1
                    failures.append(Manifest.Failure(
                        url: client.location.description + "/" + upload.path, role: "store",
                        error: MediaError(code: error.code, message: error.description)))
                }
            }
        }
        manifest.failures += failures.sorted { $0.url < $1.url }
        if summary.failed == 0 {
            summary.manifestKey = CacheLayout.manifest(name)
        }
        manifest.summary.store = summary
        let encoded = try? manifest.encoded()
        if let encoded { try? encoded.write(to: manifestURL, options: .atomic) }
        if summary.failed == 0, let encoded {
            do {
                _ = try await client.put(CacheLayout.manifest(name), bytes: [UInt8](encoded), contentType: "application/json")
            } catch {
                summary.manifestKey = nil
                summary.failed += 1
                manifest.failures.append(Manifest.Failure(
                    url: client.location.description + "/" + CacheLayout.manifest(name), role: "store",
                    error: MediaError(code: error.code, message: error.description)))
                manifest.summary.store = summary
                if let again = try? manifest.encoded() { try? again.write(to: manifestURL, options: .atomic) }
            }
        }
        try? await client.delete(lease)
        return summary
    }

    /// Once the store has not answered one upload through all its retries, the
    /// uploads after it fail at once with the same reason instead of each waiting
    /// out its own retries: the run ends in seconds, and its re-run uploads them.
    final class Outage: Sendable {
        private let error = Mutex<S3Error?>(nil)
        var current: S3Error? { error.withLock { $0 } }
        func record(_ failure: S3Error) {
            if case .unreachable = failure { error.withLock { $0 = $0 ?? failure } }
        }
    }

    private func put(_ upload: Upload, outage: Outage) async -> Result<(S3Client.PutResult, Int), S3Error> {
        if let down = outage.current { return .failure(down) }
        let file = layout.url(upload.path)
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? -1
        guard size >= 0 else {
            return .failure(.invalidLocation("\(upload.path) is named by the manifest but not in the local cache"))
        }
        do {
            let result = try await client.putFile(upload.path, file: file, partSize: partSize, sha256: upload.sha256,
                                                  contentType: Self.contentType(upload.path))
            return .success((result, size))
        } catch {
            outage.record(error)
            return .failure(error)
        }
    }

    static func contentType(_ path: String) -> String {
        if path.hasSuffix(".jpg") { return "image/jpeg" }
        if path.hasSuffix(".png") { return "image/png" }
        if path.hasSuffix(".json") { return "application/json" }
        return "application/octet-stream"
    }
}

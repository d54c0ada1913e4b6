import Catalog
import MediaFetch
public import BlobStore
import Foundation
public import ObjectStore

/// Copies objects from the bucket into the cache directory for the commands that
/// read files whole and by path (`export`, `info`): the originals through the
/// blob store (hashed again, fsynced, named by what they hash to), derived files
/// published atomically. What the directory has already is not fetched again.
public struct BucketHydrator: BlobSource {
    public let storage: any CacheStorage
    public let store: BlobStore
    /// Objects fetched at once.
    public var concurrency = 8

    public init(storage: any CacheStorage, store: BlobStore) {
        self.storage = storage
        self.store = store
    }

    public struct Report: Sendable, Equatable {
        public var copied = 0
        public var present = 0
        /// Path and reason.
        public var failed: [String: String] = [:]
    }

    /// Every file the manifests in the cache's `manifests/` name, for `hash` only when given.
    public static func paths(manifestsIn layout: CacheLayout, hash: BlobHash? = nil) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: layout.manifestsURL.path)) ?? []
        var seen = Set<String>()
        var paths: [String] = []
        for name in names.sorted() where CacheKey.isManifestName(name) {
            // A post at a time: a million-post run's manifest is gigabytes.
            guard let file = try? ManifestFile(url: layout.manifestsURL.appendingPathComponent(name)) else { continue }
            try? file.forEachPost(releasing: true) { _, range in
                if let hash, !file.slice(range).withUnsafeBytes({ $0.firstRange(of: Array(hash.hex.utf8)) != nil }) {
                    return
                }
                guard let post = try? file.post(at: range) else { return }
                for upload in StorePublisher.uploads(of: [post]) where seen.insert(upload.path).inserted {
                    if let hash, !upload.path.contains(hash.hex) { continue }
                    paths.append(upload.path)
                }
            }
        }
        return paths
    }

    /// Every file `tweets` name: their originals, packs and thumbnails.
    public static func paths(for tweets: [ManifestTweet]) -> [String] {
        StorePublisher.uploads(of: tweets).map(\.path)
    }

    public func hydrate(_ paths: [String]) async -> Report {
        var report = Report()
        let paths = paths.filter { CacheKey(path: $0)?.isShared == true }
        let layout = store.layout
        let missing = paths.filter { !FileManager.default.fileExists(atPath: layout.path($0)) }
        report.present = paths.count - missing.count
        await concurrently(missing, width: concurrency, { path in (path, await copy(path)) }) { path, problem in
            if let problem { report.failed[path] = problem } else { report.copied += 1 }
        }
        return report
    }

    public func copy(_ hashes: [BlobHash], into store: BlobStore) async -> (hashes: Set<BlobHash>, bytes: Int) {
        let hydrator = BucketHydrator(storage: storage, store: store)
        var copied = Set<BlobHash>()
        var bytes = 0
        await concurrently(hashes, width: concurrency, { hash in
            (hash, await hydrator.copy(CacheLayout.blob(hash)) == nil)
        }) { hash, done in
            guard done else { return }
            copied.insert(hash)
            bytes += ((try? FileManager.default.attributesOfItem(atPath: store.path(for: hash).path))?[.size] as? Int) ?? 0
        }
        return (copied, bytes)
    }

    /// The largest object copied (in memory, `concurrency` at a time).
    public static let maxObjectBytes = 512 << 20

    /// Nil when copied; else why not.
    private func copy(_ path: String) async -> String? {
        let bytes: [UInt8]
        do {
            guard let found = try await storage.get(path, maxBytes: Self.maxObjectBytes) else { return "not in the bucket" }
            bytes = found
        } catch {
            return error.description
        }
        do {
            if case .original(let named) = CacheKey(path: path) {
                let name = named.hex
                // Checked before the store keeps them: garbage is not kept under its own hash either.
                let actual = BlobHash(hashing: bytes)
                guard actual.hex == name else {
                    return "the bucket's bytes hash to \(actual.hex), not to their name (`verify --store` finds such objects)"
                }
                _ = try store.put(bytes)
            } else {
                try store.publishDerived(bytes, at: path)
            }
            return nil
        } catch {
            return "\(error)"
        }
    }
}

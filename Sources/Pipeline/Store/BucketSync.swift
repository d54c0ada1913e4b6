import Catalog
public import BlobStore
import Foundation
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

    /// Syncs `storage` into the cache `layout` describes (``Cache/layout``).
    public init(storage: any CacheStorage, layout: CacheLayout) {
        self.storage = storage
        self.layout = layout
    }

    public struct Report: Sendable, Equatable, Codable {
        /// Manifests in the bucket.
        public var listed = 0
        /// Copied this time.
        public var copied = 0
        /// URLs recorded in the index.
        public var urls = 0
        /// Manifests that could not be read (and the cache index, when it cannot be
        /// opened): key or file name, and reason.
        public var failed: [String: String] = [:]
        /// Tombstones new to this machine (other machines' `forget`), and the posts
        /// removed here because of them.
        public var tombstones = 0
        public var forgotten = 0
    }

    /// `progress` counts the bytes of the runs copied, out of those this cache lacks.
    public func run(progress: WorkProgress? = nil) async throws(StoreError) -> Report {
        var report = Report()
        var copiedNames = Set<String>()
        let objects = try await storage.list(CacheLayout.manifestsFolder + "/")
            .filter { CacheKey(path: $0.key)?.kind == .manifest }
        report.listed = objects.count
        do {
            try FileManager.default.createDirectory(at: layout.manifestsURL, withIntermediateDirectories: true)
        } catch {
            throw .io(path: layout.manifestsURL.path, reason: "cannot create the cache's manifests folder: \(error.localizedDescription)")
        }
        // Without the index the runs are still copied and read; what they name is not
        // recorded as known here, which the report says.
        let recorder: BucketURLRecorder?
        do {
            recorder = BucketURLRecorder(index: try CacheIndex(path: layout.indexURL), layout: layout)
        } catch {
            recorder = nil
            report.failed[layout.indexURL.lastPathComponent] = "the cache index cannot be opened (\(error)); URLs of synced runs are not recorded"
        }
        // Runs a sync was stopped before recording (their marker stands).
        if let recorder { recordOwed(recorder) }
        let missing = objects.sorted(by: { $0.key < $1.key }).filter { !FileManager.default.fileExists(atPath: layout.url($0.key).path) }
        // The catalog reads each run on a thread of its own while the next is copied:
        // into an empty catalog (a new machine) that is one read without its indexes,
        // made at the end; the runs it read before are not read again. The index's URL
        // rows come from the same reading of each post. Should the catalog fail, nothing
        // is lost: the runs it did not finish have their URLs recorded below, and the
        // next reader's refresh reads them.
        let arrivals = ManifestArrivals()
        defer { arrivals.finish() }  // on any way out, so the catalog's thread ends
        let bytes = missing.reduce(0) { $0 + $1.size }
        progress?.addTotal(bytes)
        let cataloged = missing.isEmpty ? nil
            : Self.readIntoCatalog(arrivals, root: layout.root,
                                   bytes: missing.reduce(0) { $0 + PostCatalog.estimatedJSONBytes(name: $1.key, size: $1.size) },
                                   observer: recorder)
        for object in missing {
            let local = layout.url(object.key)
            // Copied to a hidden name a chunk at a time (a million-post run's manifest
            // is gigabytes), its structure checked (a file that is not a manifest stays
            // out), its URLs noted as owed, then renamed into place.
            let temporary = layout.manifestsURL.appendingPathComponent(".sync-\(UInt64.random(in: .min ... .max)).json")
            defer {
                try? FileManager.default.removeItem(at: temporary)
                progress?.advance(by: object.size)
            }
            do {
                guard try await storage.download(object.key, to: temporary) else { continue }
                try SeekableZstdFile.requireWhole(temporary.path)
                let manifest = try ManifestFile(url: temporary)
                try recorder?.owe(local.lastPathComponent)
                try FileManager.default.moveItem(at: temporary, to: local)
                arrivals.put(ManifestArrival(name: local.lastPathComponent, manifest: manifest))
                report.copied += 1
                copiedNames.insert(local.lastPathComponent)
            } catch {
                report.failed[object.key] = "\(error)"
            }
        }
        arrivals.finish()
        progress?.setPhase("reading the last runs into the catalog")
        if let why = await cataloged?.value {
            // Said, not swallowed: the runs are in place and the next reader's refresh reads them.
            report.failed[PostCatalog.fileName] = "the catalog could not read the runs just copied (\(why)); the next command that reads it does"
        }
        if let recorder {
            recordOwed(recorder)
            report.urls = recorder.recorded
        }
        // Posts other machines forgot go here too, and posts in the runs just copied
        // that this machine's log names (a run published before its machine knew).
        progress?.setPhase("applying tombstones")
        do {
            let forgotten = try await Forgetter(layout: layout, storage: storage)
                .applyBucketTombstones(newManifests: copiedNames)
            report.tombstones = forgotten.tombstones
            report.forgotten = forgotten.posts
        } catch {
            report.failed[Forgetter.bucketFolder + "/"] = error.description
        }
        return report
    }

    /// Records the URLs of each run whose marker stands: copied by a sync stopped
    /// before they were recorded, or not read to its end by the catalog.
    private func recordOwed(_ recorder: BucketURLRecorder) {
        for name in recorder.owed() {
            if let manifest = try? ManifestFile(url: layout.manifestsURL.appendingPathComponent(name)) {
                recorder.record(manifest, name: name)
            } else {
                // Not a manifest (any more): it names no URL.
                try? FileManager.default.removeItem(at: recorder.marker(name))
            }
        }
    }

    /// Starts a thread that reads the manifests `arrivals` gives into the catalog
    /// (blocking work, kept off the tasks' threads), `observer` seeing each post's
    /// fetched objects; the task ends when it has.
    private static func readIntoCatalog(_ arrivals: ManifestArrivals, root: URL, bytes: Int,
                                        observer: (any FetchedObjectsObserver)?) -> Task<String?, Never> {
        Task {
            await withCheckedContinuation { (done: CheckedContinuation<String?, Never>) in
                let thread = Thread {
                    var failure: String? = nil
                    do {
                        // This thread's catalog alone: nothing else reads it meanwhile, so a
                        // first read of a bucket's runs may write it without a log (`reindex`'s way).
                        _ = try PostCatalog(cacheRoot: root).add(manifestsArriving: arrivals.take, bytes: bytes, observer: observer,
                                                                 alone: true)
                    } catch {
                        failure = String(describing: error)
                    }
                    // Whatever is left (the catalog could not open) is taken, so nothing waits.
                    while arrivals.take() != nil {}
                    done.resume(returning: failure)
                }
                thread.name = "catalog"
                thread.start()
            }
        }
    }
}

public import Catalog
public import BlobStore
public import Foundation
public import ObjectStore
import TweetModel
#if canImport(Glibc)
import Glibc
#endif

/// `tweetcache forget`: removes posts from the cache for good, as their networks and
/// their authors ask (a deletion, a suspended or protected account, X's batch
/// compliance file), and as the streams' delete events will.
///
/// A forgotten post, and every repost of it, is removed from every manifest and every
/// saved results page (overwritten with spaces in a copy renamed over the file: the
/// other posts keep their bytes and places), from the catalog and its words' index
/// (with SQLite's `secure_delete`, the index merged and the log cut to nothing), and
/// its media (originals, thumbnails, packs, PDQ and index rows) once no other post uses
/// them, from the disk, the local copy of a bucket and the bucket. A tombstone (no
/// content) is appended to the log first (``TombstoneLog``), so a later fetch of an old
/// page or a `sync` does not bring the post back, and a `forget` killed at any point is
/// finished by the next one.
public struct Forgetter: Sendable {
    public let layout: CacheLayout
    /// The bucket shared with other machines, when there is one.
    public var storage: (any CacheStorage)?
    public var now: @Sendable () -> Date = { Date() }
    /// For tests of a run killed midway: stop once this many files have been
    /// rewritten, with an error or (``killsAtStop``) by SIGKILL to the process.
    package var stopAfterRewrites: Int?
    package var killsAtStop = false

    /// Forgets in the cache `layout` describes (``Cache/layout``), and in `storage` when it shares a bucket.
    public init(layout: CacheLayout, storage: (any CacheStorage)? = nil) {
        self.layout = layout
        self.storage = storage
    }

    /// One post asked for, and why.
    public struct Request: Sendable {
        public var key: PostIdentity
        public var reason: String
        public init(key: PostIdentity, reason: String) {
            self.key = key
            self.reason = reason
        }
    }

    /// What a `forget` did (or, dry, would do).
    public struct Report: Sendable, Codable, Equatable {
        public var dryRun = false
        /// Posts asked for (and a killed run's, finished now).
        public var asked = 0
        /// Posts the cache held (in a manifest or the catalog) and removed.
        public var posts: [String] = []
        /// Reposts of them, removed with them.
        public var reposts: [String] = []
        public var manifestsRewritten = 0
        public var pagesRewritten = 0
        public var blobsDeleted = 0
        /// Media the forgotten posts used that other posts still use: kept.
        public var blobsShared = 0
        public var bytesFreed = 0
        /// With a bucket: objects deleted there, manifests put back without the posts.
        public var bucketObjectsDeleted = 0
        public var bucketManifestsRewritten = 0
        /// True when a killed run's work was finished.
        public var resumed = false
        public var problems: [String] = []

        enum CodingKeys: String, CodingKey {
            case asked, posts, reposts, resumed, problems
            case dryRun = "dry_run"
            case manifestsRewritten = "manifests_rewritten"
            case pagesRewritten = "pages_rewritten"
            case blobsDeleted = "blobs_deleted"
            case blobsShared = "blobs_shared"
            case bytesFreed = "bytes_freed"
            case bucketObjectsDeleted = "bucket_objects_deleted"
            case bucketManifestsRewritten = "bucket_manifests_rewritten"
        }

        public var text: String {
            let verb = dryRun ? "would forget" : "forgot"
            var lines = ["\(verb) \(posts.count) of \(asked) posts asked for"
                + (reposts.isEmpty ? "" : " and \(reposts.count) reposts of them") + (resumed ? " (finishing a forget cut short)" : "")]
            for post in (posts + reposts).prefix(dryRun ? .max : 20) { lines.append("  \(post)") }
            if !dryRun, posts.count + reposts.count > 20 { lines.append("  …") }
            lines.append("\(dryRun ? "would rewrite" : "rewrote") \(manifestsRewritten) manifests and \(pagesRewritten) saved pages;"
                + " \(dryRun ? "would delete" : "deleted") \(blobsDeleted) images (\(ByteCount.format(bytesFreed)))"
                + (blobsShared > 0 ? ", kept \(blobsShared) other posts still use" : ""))
            if bucketObjectsDeleted + bucketManifestsRewritten > 0 {
                lines.append("bucket: \(bucketManifestsRewritten) manifests rewritten, \(bucketObjectsDeleted) objects deleted")
            }
            for problem in problems { lines.append("problem: \(problem)") }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// Forgets `requests`; with `dryRun`, only says what would go. With no requests,
    /// finishes a forget that was cut short (and does nothing otherwise).
    public func run(_ requests: [Request], dryRun: Bool = false, progress: WorkProgress? = nil) async throws(ForgetError) -> Report {
        var report = Report()
        report.dryRun = dryRun
        let log = TombstoneLog(cacheRoot: layout.root)
        let lock: Int32
        do { lock = try log.lock() } catch { throw .tombstones(error.description) }
        defer { log.unlock(lock) }
        sweepTemporaries()
        let held: [Tombstone]
        do { held = try log.read().tombstones } catch { throw .tombstones(error.description) }
        var reasons: [PostIdentity: String] = [:]
        for request in requests { reasons[request.key] = reasons[request.key] ?? request.reason }
        report.asked = reasons.count
        let pending = log.pendingWork()
        if pending != nil {
            report.resumed = true
            for tombstone in held where reasons[tombstone.key] == nil { reasons[tombstone.key] = tombstone.reason }
        }
        guard !reasons.isEmpty else { return report }
        if !dryRun {
            let known = Set(held.map(\.key))
            let at = now()
            let new = reasons.filter { !known.contains($0.key) }.sorted { $0.key < $1.key }
                .map { Tombstone(key: $0.key, forgottenAt: at, reason: $0.value) }
            do {
                try log.append(new)
                if pending == nil { try log.setPending(TombstoneLog.PendingWork()) }
            } catch {
                throw .tombstones(error.description)
            }
        }
        let outcome = try await apply(Set(reasons.keys), dryRun: dryRun, report: &report, progress: progress)
        if !dryRun {
            // Reposts found on the way get tombstones of their own: a replay of one
            // must not bring it back either.
            let known = Set(held.map(\.key)).union(reasons.keys)
            let at = now()
            let reposts = outcome.reposts.filter { !known.contains($0) }.sorted()
                .map { Tombstone(key: $0, forgottenAt: at, reason: "repost") }
            do {
                try log.append(reposts)
            } catch {
                throw .tombstones(error.description)
            }
            // Other machines sharing the bucket forget the same posts at their next sync.
            if let storage {
                let all = reasons.map { Tombstone(key: $0.key, forgottenAt: at, reason: $0.value) }
                    + reposts
                try await Self.publish(all.sorted { $0.key < $1.key }, to: storage)
            }
            // A problem left (a manifest or page that could not be read) keeps the
            // mark: the next forget tries again.
            if report.problems.isEmpty {
                do { try log.clearPending() } catch { throw .tombstones(error.description) }
            }
        }
        return report
    }

    /// At the end of a run that went while posts were forgotten (the tombstone log
    /// grew), or that left forgotten posts out: removes them from the run's own
    /// manifest (the forget could not see it before it was written) and from the saved
    /// pages, under the same lock as a `forget`.
    public func applyToRun(manifestName: String) async throws(ForgetError) {
        let log = TombstoneLog(cacheRoot: layout.root)
        let lock: Int32
        do { lock = try log.lock() } catch { throw .tombstones(error.description) }
        defer { log.unlock(lock) }
        let keys: Set<PostIdentity>
        do { keys = try log.keys() } catch { throw .tombstones(error.description) }
        guard !keys.isEmpty else { return }
        let wasPending = log.pendingWork() != nil
        var report = Report()
        _ = try await apply(keys, onlyManifests: [manifestName], dryRun: false, report: &report)
        if !wasPending, report.problems.isEmpty {
            do { try log.clearPending() } catch { throw .tombstones(error.description) }
        }
    }

    /// A bucket's tombstones: `tombstones/<UTC>-<random>.jsonl`, one object per
    /// `forget`, each line a ``Tombstone``.
    public static let bucketFolder = "tombstones"

    static func publish(_ tombstones: [Tombstone], to storage: any CacheStorage) async throws(ForgetError) {
        guard !tombstones.isEmpty else { return }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let key = "\(bucketFolder)/\(f.string(from: Date()))-\(String(UInt64.random(in: .min ... .max), radix: 16)).jsonl"
        do {
            _ = try await storage.store(key, bytes: [UInt8](TombstoneLog.lines(tombstones)), sha256: nil,
                                        contentType: "application/x-ndjson", replace: true)
        } catch {
            throw .bucket("\(key): \(error.description)")
        }
    }

    /// What ``applyBucketTombstones(newManifests:)`` did.
    public struct SyncReport: Sendable, Equatable, Codable {
        /// Tombstone objects read from the bucket this time.
        public var objects = 0
        /// Tombstones new to this machine.
        public var tombstones = 0
        /// Posts removed here because of them.
        public var posts = 0
    }

    /// Reads the bucket's tombstones this machine has not read (named in
    /// `tombstones.synced`), adds them to the log, and forgets what they name here;
    /// manifests just copied from the bucket (`newManifests`) are checked against the
    /// whole log, which a run on another machine may have published before it knew of
    /// a deletion. Manifests this changes that the bucket shares are put back without
    /// the posts.
    public func applyBucketTombstones(newManifests: Set<String>) async throws(ForgetError) -> SyncReport {
        guard let storage else { return SyncReport() }
        var sync = SyncReport()
        let log = TombstoneLog(cacheRoot: layout.root)
        let lock: Int32
        do { lock = try log.lock() } catch { throw .tombstones(error.description) }
        defer { log.unlock(lock) }
        let seenURL = layout.root.appendingPathComponent("tombstones.synced")
        let seen = Set(((try? String(contentsOf: seenURL, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init))
        let objects: [StoredObject]
        do {
            objects = try await storage.list(Self.bucketFolder + "/").filter { $0.key.hasSuffix(".jsonl") && !seen.contains($0.key) }
        } catch {
            throw .bucket("listing \(Self.bucketFolder)/: \(error.description)")
        }
        let held: [Tombstone]
        do { held = try log.read().tombstones } catch { throw .tombstones(error.description) }
        var known = Set(held.map(\.key))
        var arrived: [Tombstone] = []
        for object in objects.sorted(by: { $0.key < $1.key }) {
            do {
                guard let bytes = try await storage.get(object.key, maxBytes: 64 << 20) else { continue }
                for tombstone in TombstoneLog.parse(lines: Data(bytes)) where known.insert(tombstone.key).inserted {
                    arrived.append(tombstone)
                }
                sync.objects += 1
            } catch {
                throw .bucket("\(object.key): \(error.description)")
            }
        }
        sync.tombstones = arrived.count
        var report = Report()
        // A forget cut short here keeps its own mark, which the next forget finishes.
        let marked = log.pendingWork() == nil
        if !arrived.isEmpty {
            do {
                try log.append(arrived)
                if marked { try log.setPending(TombstoneLog.PendingWork()) }
            } catch {
                throw .tombstones(error.description)
            }
            _ = try await apply(Set(arrived.map(\.key)), dryRun: false, report: &report)
            sync.posts += report.posts.count + report.reposts.count
        }
        if !newManifests.isEmpty, !held.isEmpty {
            report = Report()
            _ = try await apply(Set(held.map(\.key)), onlyManifests: newManifests, dryRun: false, report: &report)
            sync.posts += report.posts.count + report.reposts.count
        }
        if marked, report.problems.isEmpty {
            do { try log.clearPending() } catch { throw .tombstones(error.description) }
        }
        if !objects.isEmpty {
            let lines = (seen.union(objects.map(\.key))).sorted().joined(separator: "\n") + "\n"
            try? Data(lines.utf8).write(to: seenURL, options: .atomic)
        }
        return sync
    }

    /// What ``apply(_:dryRun:report:progress:)`` found besides its report.
    struct Applied {
        var reposts: Set<PostIdentity> = []
    }

    /// Removes the posts `keys` name (and their reposts) from this cache's files, its
    /// catalog and index, its media, and the bucket. Idempotent: what is gone is not
    /// found again, so a second run over the same keys does nothing more.
    func apply(_ keys: Set<PostIdentity>, onlyManifests: Set<String>? = nil, dryRun: Bool, report: inout Report,
               progress: WorkProgress? = nil) async throws(ForgetError) -> Applied {
        var applied = Applied()
        let catalog: PostCatalog
        do {
            catalog = try PostCatalog(cacheRoot: layout.root)
            try catalog.refresh()
        } catch {
            throw .catalog(error.description)
        }
        // 1. Where each post is, in every manifest (older copies included).
        progress?.setPhase("finding the posts in the manifests")
        // Only what was found is kept, never the files (mapped, a million posts' are
        // gigabytes): each is opened again when it is rewritten.
        var found: [(name: String, size: Int, posts: [ManifestRedaction.Found])] = []
        var failureRanges: [String: Range<Int>] = [:]
        // The bytes each will change (its posts' and their commas; its failures'
        // when URLs go, added below): what names them elsewhere is rewritten first.
        var changing: [String: [Range<Int>]] = [:]
        for name in manifestNames() where onlyManifests?.contains(name) ?? true {
            let url = layout.manifestsURL.appendingPathComponent(name)
            do {
                let file = try ManifestFile(url: url)
                let posts = try ManifestRedaction.find(in: file, keys: keys)
                if !posts.isEmpty {
                    found.append((name, file.fileSize, posts))
                    failureRanges[name] = file.range(ofMember: "failures")
                    let blanks = try ManifestRedaction.blanks(in: file, removing: posts.map(\.range), failedURLs: [])
                    changing[name] = ManifestRedaction.changes(blanks, in: file.bytes)
                }
            } catch {
                report.problems.append("\(CacheLayout.manifest(name)): \(error)")
            }
        }
        let allFound = found.flatMap(\.posts)
        applied.reposts = Set(allFound.compactMap { $0.repostOf == nil ? nil : $0.key })
        var everything = keys.union(applied.reposts)
        // A repost found in the catalog but in no manifest read now goes too.
        let inCatalog: [PostIdentity]
        do { inCatalog = try catalog.known(everything) } catch { throw .catalog(error.description) }
        let removedKeys = Set(allFound.map(\.key)).union(inCatalog)
        report.posts = removedKeys.subtracting(applied.reposts).sorted().map(\.description)
        report.reposts = applied.reposts.sorted().map(\.description)
        everything.formUnion(removedKeys)

        // 2. The URLs that go with them: their media's, and the avatar of an author
        // with no post left.
        let urls = removedURLs(allFound.map(\.post), removing: everything, catalog: catalog)
        let media: PostCatalog.ForgetOutcome
        do { media = try catalog.forgetting(everything) } catch { throw .catalog(error.description) }

        // 3. The saved pages that hold them.
        progress?.setPhase("finding the posts in the saved pages")
        let pages = pagesHolding(everything, problems: &report.problems)
        report.manifestsRewritten = found.count
        report.pagesRewritten = pages.count
        report.blobsShared = media.shared
        let store = try? BlobStore(layout: layout)
        if dryRun {
            report.blobsDeleted = media.unused.count
            report.bytesFreed = media.unused.reduce(0) { total, hash in total + bytes(of: hash, store: store) }
            return applied
        }

        // What is to be done is written down before anything changes: a forget cut
        // short after the catalog lost the posts could not find it again.
        let log = TombstoneLog(cacheRoot: layout.root)
        var work = (log.pendingWork() ?? TombstoneLog.PendingWork()).merged(with: TombstoneLog.PendingWork(
            manifests: found.map(\.name), hashes: media.unused.map(\.hex), urls: urls.sorted()))
        if onlyManifests == nil || !work.hashes.isEmpty || !work.urls.isEmpty {
            do { try log.setPending(work) } catch { throw .tombstones(error.description) }
        }
        work.manifests = work.manifests.filter { FileManager.default.fileExists(atPath: layout.manifestsURL.appendingPathComponent($0).path) }

        // 4. Rewrite: manifests, then pages.
        var rewrites = 0
        func counted() throws(ForgetError) {
            rewrites += 1
            if let stop = stopAfterRewrites, rewrites >= stop {
                if killsAtStop { kill(getpid(), SIGKILL) }
                throw .stopped
            }
        }
        progress?.setPhase("rewriting manifests and pages")
        var rewritten: [(path: String, size: Int, mtime: Int, blanked: [Range<Int>])] = []
        // Manifests naming bytes about to change are written again first (ManifestRewritePlan).
        if !urls.isEmpty {
            for (name, failures) in failureRanges { changing[name, default: []].append(failures) }
        }
        let plan = ManifestRewritePlan(folder: layout.manifestsURL, names: manifestNames(), changing: changing)
        let foundByName = Dictionary(found.map { ($0.name, ($0.size, $0.posts)) }, uniquingKeysWith: { first, _ in first })
        for step in plan.steps {
            let name = step.name
            let url = layout.manifestsURL.appendingPathComponent(name)
            do {
                guard step.blanking, let (size, posts) = foundByName[name] else {
                    // Only names bytes about to change: those copied in, nothing blanked.
                    if let facts = try ManifestRedaction.rewriteEntries(at: url, blanks: [], materializing: step.materializing) {
                        rewritten.append((CacheLayout.manifest(name), facts.size, facts.mtime, []))
                    }
                    continue
                }
                let file = try ManifestFile(url: url)
                // Changed since it was read (another forget, a sync): found again.
                let ranges = file.fileSize == size ? posts.map(\.range)
                    : try ManifestRedaction.find(in: file, keys: everything).map(\.range)
                let facts = try ManifestRedaction.rewrite(file, at: url, removing: ranges, failedURLs: urls,
                                                          materializing: step.materializing, allowedChanges: changing[name])
                rewritten.append((CacheLayout.manifest(name), facts.size, facts.mtime, ranges))
            } catch {
                throw .rewrite(path: url.path, message: "\(error)")
            }
            try counted()
        }
        for page in pages {
            do {
                let bytes = try Data(contentsOf: page.url)
                // Changed since it was read: the next forget finds it again.
                guard bytes.count == page.size else { throw ForgetError.rewrite(path: page.url.path, message: "changed while forgetting") }
                _ = try ManifestRedaction.writeBlanked(bytes, blanks: page.blanks, over: page.url)
            } catch {
                throw .rewrite(path: page.url.path, message: "\(error)")
            }
            try counted()
        }

        // 5. The images: only those no remaining post names in any manifest (older
        // copies of kept posts included) go; none while a manifest cannot be read (it
        // may name anything).
        progress?.setPhase("deleting their media")
        let candidates = Set(work.hashes.compactMap { BlobHash(hex: $0) })
        let scan = NamedHashes.find(candidates, inFiles: manifestNames().map { layout.manifestsURL.appendingPathComponent($0).path })
        let unreadable = (try? catalog.problems()) ?? []
        var unused = candidates.subtracting(scan.named)
        if !scan.unreadable.isEmpty || !unreadable.isEmpty {
            report.problems.append("images kept until every manifest can be read: \((scan.unreadable + unreadable.map { "\($0)" }).prefix(3).joined(separator: ", "))")
            unused = []
        }
        report.blobsShared = media.shared + candidates.intersection(scan.named).count
        report.bytesFreed = 0
        var removed: [BlobHash] = []
        for hash in unused.sorted() {
            let size = bytes(of: hash, store: store)
            if let store {
                do {
                    try store.remove(hash)
                } catch {
                    report.problems.append("\(CacheLayout.blob(hash)): \(error)")
                    continue
                }
                _ = store.removeDerived(of: hash)
            }
            removeLocalCopies(of: hash)
            report.bytesFreed += size
            removed.append(hash)
        }
        report.blobsDeleted = removed.count

        // 6. The catalog and the index.
        progress?.setPhase("removing them from the catalog")
        do { try catalog.forget(everything, rewritten: rewritten, unused: Set(removed)) } catch { throw .catalog(error.description) }
        do {
            try CacheIndex(path: layout.indexURL).erase(hashes: removed, urls: Set(work.urls))
        } catch {
            throw .index(error.description)
        }

        // 7. The bucket: the manifests it shares put back without the posts, the
        // images' objects deleted (the tombstones for other machines are the caller's).
        if let storage {
            progress?.setPhase("updating the bucket")
            try await updateBucket(storage, manifests: work.manifests, unused: unused.sorted(),
                                   posts: allFound.map(\.post), report: &report)
        }
        return applied
    }

}

import CacheCore
import Catalog
import MediaFetch
import BlobStore
public import Foundation
import Imaging
public import ObjectStore

extension StoreMaintenance {
    // MARK: - Garbage collection

    public struct CollectReport: Sendable, Codable, Equatable {
        public var referenced = 0
        public var removed: [String] = []
        public var bytesRemoved = 0
        /// Unreferenced but written within the grace period (a fetch may be uploading
        /// the manifest that names them).
        public var tooNew = 0
        public var dryRun = false
        /// Leases of runs uploading now (renewed within ``leaseLifetime``), each with
        /// how long ago: while one exists nothing is deleted.
        public var blockedBy: [String] = []
        /// Objects under `leases/` no run wrote (a failed write check, junk): ignored.
        public var ignoredLeases: [String] = []
        /// Leases of runs that stopped renewing them (killed, or with keys that may
        /// not delete): removed, since no live writer holds them.
        public var expiredLeases: [String] = []
        /// Uploads of dead runs, begun and never finished (parts the bucket keeps but
        /// never shows): aborted.
        public var abortedUploads: [String] = []
        /// Objects under `manifests/` that do not read and were skipped, with why.
        public var skippedManifests: [String] = []
        /// Damaged manifests of runs with no copy here: nothing is collected while one exists.
        public var unreadableManifests: [String] = []

        enum CodingKeys: String, CodingKey {
            case referenced, removed
            case bytesRemoved = "bytes_removed"
            case tooNew = "too_new"
            case dryRun = "dry_run"
            case blockedBy = "blocked_by"
            case ignoredLeases = "ignored_leases"
            case expiredLeases = "expired_leases"
            case abortedUploads = "aborted_uploads"
            case skippedManifests = "skipped_manifests"
            case unreadableManifests = "unreadable_manifests"
        }

        public var text: String {
            var lines = ignoredLeases.map { "bucket: \($0) is not a run's lease; ignored" }
                + expiredLeases.map { "bucket: \($0): \(dryRun ? "would remove" : "removed") the lease of a run that stopped renewing it" }
                + abortedUploads.map { "bucket: \($0): \(dryRun ? "would abort" : "aborted") the unfinished upload of a dead run" }
                + skippedManifests.map { "bucket: \($0)" }
            if !blockedBy.isEmpty {
                lines.append("bucket: runs are uploading (\(blockedBy.joined(separator: ", "))); nothing collected, try later")
            } else if !unreadableManifests.isEmpty {
                lines += unreadableManifests.map { "bucket: \($0)" }
                lines.append("bucket: nothing collected: a run's manifest above cannot be read and this machine holds no copy, "
                    + "so what it names is unknown; put it back with `verify --store --repair` on a machine that holds it, or remove it")
            } else {
                lines.append("bucket: \(referenced) objects named by manifests; \(dryRun ? "would remove" : "removed") \(removed.count) "
                    + "(\(ByteCount.format(bytesRemoved))); \(tooNew) unreferenced but newer than the grace period kept")
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// Deletes originals and derived files no manifest in the bucket names. Safe
    /// while other machines fetch: they upload a run's files before its manifest and
    /// hold a lease while they run, so nothing is deleted while a live lease exists,
    /// and an unreferenced object younger than `grace` is kept.
    ///
    /// An object under `manifests/` that does not read is skipped when it is junk (a
    /// name no run gives its manifest). One under a run's name is a lost record of what
    /// that run uploaded: what this machine's own copy of it names (`localRoot`) is
    /// kept; without a copy nothing is collected, and the report says which manifest to
    /// put back (`verify --store --repair` on a machine that holds it) or remove.
    public func collect(grace: TimeInterval, now: Date = Date(), dryRun: Bool, localRoot: URL? = nil)
        async throws(StoreError) -> CollectReport
    {
        var report = CollectReport(dryRun: dryRun)
        let leases = try await self.leases()
        report.ignoredLeases = leases.junk
        report.blockedBy = Self.live(leases.runs, now: now)
        if !report.blockedBy.isEmpty { return report }
        // No writer is alive: every run lease left is a dead run's (in a bucket, a
        // writer's lock is the lease it renews), removed so it is not listed forever.
        for key in leases.runs.map(\.key).sorted() {
            if !dryRun {
                do { try await storage.delete(key) } catch {
                    report.skippedManifests.append("\(key): could not remove this dead run's lease: \(error.description)")
                    continue
                }
            }
            report.expiredLeases.append(key)
        }
        // Uploads no live run can be making: begun before any lease now alive could be.
        let cutoff = now.addingTimeInterval(-Self.leaseLifetime)
        for upload in try await storage.unfinishedUploads("") where (upload.initiated ?? .distantPast) < cutoff {
            if !dryRun {
                do { try await storage.abort(upload) } catch {
                    report.skippedManifests.append("\(upload.key): could not abort a dead run's upload: \(error.description)")
                    continue
                }
            }
            let begun = upload.initiated.map { "begun \($0.formatted(.iso8601))" } ?? "begun at an unknown time"
            report.abortedUploads.append("\(upload.key) (\(begun))")
        }
        let named = try await namedObjects()
        var referenced = Set(named.objects.keys)
        for (key, why) in named.unreadable {
            if !Self.isRunManifestName(key) {
                report.skippedManifests.append("\(key): \(why); junk, skipped")
            } else if let local = Self.localManifest(key, in: localRoot) {
                var objects: [String: Set<BlobHash>] = [:]
                try? Self.read(manifestAt: local, into: &objects)
                referenced.formUnion(objects.keys)
                report.skippedManifests.append("\(key): \(why); what this machine's copy names is kept")
            } else {
                report.unreadableManifests.append("\(key): \(why)")
            }
        }
        if !report.unreadableManifests.isEmpty { return report }
        report.referenced = referenced.count
        // The inventory and rule `gc` of a cache folder takes too; the bucket's own layer
        // is its leases, looked at again as it goes.
        let inventory = try await ObjectInventory.taking(storage)
        let rule = CollectionRule.expired(inventory.objects.lazy.filter { !referenced.contains($0.key) }, grace: grace, now: now)
        report.tooNew = rule.tooNew
        for object in rule.expired {
            // A run that started since the last look stops the collection.
            if report.removed.count % 100 == 99 {
                report.blockedBy = Self.live(try await self.leases().runs, now: now)
                if !report.blockedBy.isEmpty { return report }
            }
            if !dryRun { try await storage.delete(object.key) }
            report.removed.append(object.key)
            report.bytesRemoved += object.size
        }
        return report
    }
}

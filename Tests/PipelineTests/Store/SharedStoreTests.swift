import CacheCore
import BlobStore
import Catalog
import Foundation
import MediaFetch
import ObjectStore
import Testing
import TestSupport
@testable import Pipeline

/// The shared-store half of the pipeline (publishing, syncing, hydrating, and
/// `verify`/`stats`/`gc` of the store) as units, over a folder store: the same
/// code runs over a bucket (`CacheStorage`), whose own behaviour
/// `CacheStorageTests` checks against a real gateway.
@Suite struct SharedStoreTests {
    /// A store holding one run (a 1000x700 photo with its pack and thumbnails, and
    /// an avatar) published by a first machine, whose cache is `cache`.
    struct Published {
        var storage: LocalStorage
        var cache: URL
        var scratch: URL
        var photo: BlobHash
        var avatar: BlobHash
        var summary: StoreSummary
        var manifest: Manifest
        var origin: LoopbackHTTPServer
        var requests: Counter

        var photoPack: String { CacheLayout.pack(photo) }
        var photoThumbnail: String { manifest.tweets[0].media[0].thumbnails![0].path }
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func add() { lock.withLock { value += 1 } }
        var count: Int { lock.withLock { value } }
    }

    static func publish() async throws -> Published {
        let scratch = try ScratchDirectory.make("tc-shared-store")
        let root = scratch.appendingPathComponent("store")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let storage = try LocalStorage(root: root)
        let photo = try realJPEG(width: 1000, height: 700, seed: 1)
        let avatar = try realJPEG(width: 400, height: 400, seed: 2)
        let requests = Counter()
        let origin = try LoopbackHTTPServer { request in
            requests.add()
            return request.path.contains("Real1") ? .respond(status: 200, body: photo)
                : request.path.contains("eve_400x400") ? .respond(status: 200, body: avatar) : .respond(status: 404)
        }
        let cache = scratch.appendingPathComponent("first")
        let run = try await Self.run(cache: cache, origin: origin, storage: storage)
        let summary = try #require(run.summary.store)
        return Published(storage: storage, cache: cache, scratch: scratch, photo: BlobHash(hashing: photo),
                         avatar: BlobHash(hashing: avatar), summary: summary, manifest: try run.manifest,
                         origin: origin, requests: requests)
    }

    /// One fetch of the page into `cache`, published to `storage`.
    static func run(cache: URL, origin: LoopbackHTTPServer, storage: LocalStorage,
                    source: (any BlobSource)? = nil) async throws -> CachePipeline.RunResult {
        var options = try makeOptions(cache: cache, origin: origin)
        var derive = DeriveOptions()
        derive.thumbnailSizes = [150, 600]
        derive.tiles = .eager
        options.derive = derive
        options.publisher = StorePublisher(storage: storage, layout: CacheLayout(root: cache)).session()
        options.blobSource = source
        return try await CachePipeline(options: options).run([ResultsInput(name: "p.json", data: Data(derivePage.utf8))])
    }

    static func bytes(_ storage: LocalStorage, _ path: String) async throws -> [UInt8]? {
        try await storage.get(path)
    }

    // MARK: - StorePublisher

    @Test func publishingPutsEveryNamedObjectThenTheManifestAndReleasesItsLease() async throws {
        let published = try await Self.publish()
        defer { published.origin.stop(); try? FileManager.default.removeItem(at: published.scratch) }
        let named = StorePublisher.uploads(of: published.manifest.tweets).map(\.path)
        #expect(named.contains(CacheLayout.blob(published.photo)))
        #expect(named.contains(published.photoPack))
        #expect(published.summary.uploaded == named.count)
        #expect(published.summary.failed == 0)
        for path in named {
            let local = try [UInt8](Data(contentsOf: CacheLayout(root: published.cache).url(path)))
            #expect(try await Self.bytes(published.storage, path) == local, "\(path)")
        }
        let key = try #require(published.summary.manifestKey)
        #expect(try await published.storage.size(key) != nil)
        #expect(try await published.storage.list(CacheLayout.leasesFolder + "/").isEmpty)

        // The same run again: everything is there, checked, and nothing is put.
        let again = try #require(try await Self.run(cache: published.cache, origin: published.origin,
                                                   storage: published.storage).summary.store)
        #expect(again.uploaded == 0)
        #expect(again.alreadyStored == named.count)
        #expect((again.replaced ?? 0) == 0)
    }

    @Test func anObjectTheStoreHoldsWithOtherBytesIsPutBackByTheNextRun() async throws {
        let published = try await Self.publish()
        defer { published.origin.stop(); try? FileManager.default.removeItem(at: published.scratch) }
        let thumbnail = published.photoThumbnail
        _ = try await published.storage.store(thumbnail, bytes: Array("garbage".utf8), sha256: nil,
                                              contentType: "image/jpeg", replace: true)
        let again = try #require(try await Self.run(cache: published.cache, origin: published.origin,
                                                   storage: published.storage).summary.store)
        #expect(again.replaced == 1)
        let local = try [UInt8](Data(contentsOf: CacheLayout(root: published.cache).url(thumbnail)))
        #expect(try await Self.bytes(published.storage, thumbnail) == local)
    }

    // MARK: - BucketSync and BucketHydrator

    @Test func syncCopiesEachRunOnceAndRecordsItsURLs() async throws {
        let published = try await Self.publish()
        defer { published.origin.stop(); try? FileManager.default.removeItem(at: published.scratch) }
        let second = published.scratch.appendingPathComponent("second")
        try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
        let report = try await BucketSync(storage: published.storage, layout: CacheLayout(root: second)).run()
        #expect(report.listed == 1 && report.copied == 1)
        #expect(report.urls >= 2)
        let index = try CacheIndex(path: CacheLayout(root: second).indexURL)
        let url = try #require(published.manifest.tweets[0].media[0].url)
        #expect(try index.lookup(url: url)?.hash == published.photo)
        // The catalog read the run while it was copied: its posts are there, nothing is left to read.
        let catalog = try PostCatalog(cacheRoot: second)
        #expect(try catalog.refresh().added.isEmpty)
        #expect(try catalog.post(id: published.manifest.tweets[0].id) == published.manifest.tweets[0])
        // The avatar's URL and the thumbnails' hashes, from the catalog's reading of the posts.
        let avatar = try #require(published.manifest.tweets[0].author.avatar?.url)
        #expect(try index.lookup(url: avatar)?.hash == published.avatar)
        let thumbnail = try #require(published.manifest.tweets[0].media[0].thumbnails?.first)
        #expect(try index.contentHashes(ofDerived: thumbnail.path, source: published.photo).map(\.hex) == [thumbnail.sha256])
        #expect(Self.markers(second).isEmpty, "no run's URLs are left owed")
        // Incremental: nothing new, nothing copied.
        let again = try await BucketSync(storage: published.storage, layout: CacheLayout(root: second)).run()
        #expect(again.listed == 1 && again.copied == 0)
    }

    /// A bucket's manifest naming another manifest's bytes is not taken: it would be
    /// read against this cache's own manifests.
    @Test func syncRefusesAManifestThatNamesAnother() async throws {
        let published = try await Self.publish()
        defer { published.origin.stop(); try? FileManager.default.removeItem(at: published.scratch) }
        let second = published.scratch.appendingPathComponent("second")
        let folder = CacheLayout(root: second).manifestsURL
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A file of this machine's (varied lines, cut into several frames), and a
        // stranger's that names its frames.
        var padded: [UInt8] = []
        for n in 0..<6_000 { padded += Array("    { \"id\" : \"\(n &* 2_654_435_761 % 1_000_003)\", \"n\" : \(n) },\n".utf8) }
        var own: [UInt8] = []
        let first = SeekableZstdWriter { own += $0 }
        try first.write(padded)
        try first.finish()
        try Data(own).write(to: folder.appendingPathComponent("20200101T000000Z.json.zst"))
        var naming: [UInt8] = []
        let writer = SeekableZstdWriter(base: FrameIndex(directory: folder)) { naming += $0 }
        try writer.write(Array("\n".utf8) + padded)
        try writer.finish()
        #expect(!writer.holders.isEmpty)
        let key = "manifests/20200102T000000Z-stranger.json.zst"
        try Data(naming).write(to: published.storage.root.appendingPathComponent(key))
        let report = try await BucketSync(storage: published.storage, layout: CacheLayout(root: second)).run()
        #expect(report.failed[key]?.contains("names another manifest") == true, "\(report.failed)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("20200102T000000Z-stranger.json.zst").path))
    }

    static func markers(_ cache: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: CacheLayout(root: cache).manifestsURL.path)) ?? [])
            .filter { $0.hasSuffix(".urls") }
    }

    /// A sync stopped after putting a run in place and before its URLs were in the
    /// index left the run's marker: the next sync records them, though it copies nothing.
    @Test func aSyncStoppedBeforeRecordingARunsURLsRecordsThemNextTime() async throws {
        let published = try await Self.publish()
        defer { published.origin.stop(); try? FileManager.default.removeItem(at: published.scratch) }
        let second = CacheLayout(root: published.scratch.appendingPathComponent("second"))
        try FileManager.default.createDirectory(at: second.manifestsURL, withIntermediateDirectories: true)
        let name = try #require(FileManager.default.contentsOfDirectory(atPath: CacheLayout(root: published.cache).manifestsURL.path)
            .first { $0.hasSuffix(".json.zst") })
        try FileManager.default.copyItem(at: CacheLayout(root: published.cache).manifestsURL.appendingPathComponent(name),
                                         to: second.manifestsURL.appendingPathComponent(name))
        #expect(FileManager.default.createFile(atPath: second.manifestsURL.appendingPathComponent(".\(name).urls").path, contents: nil))
        // And one for a run that never arrived: it goes.
        #expect(FileManager.default.createFile(atPath: second.manifestsURL.appendingPathComponent(".gone.json.urls").path, contents: nil))
        let url = try #require(published.manifest.tweets[0].media[0].url)
        #expect(try CacheIndex(path: second.indexURL).lookup(url: url) == nil)

        let report = try await BucketSync(storage: published.storage, layout: CacheLayout(root: second.root)).run()
        #expect(report.copied == 0)
        #expect(report.urls >= 2)
        #expect(try CacheIndex(path: second.indexURL).lookup(url: url)?.hash == published.photo)
        #expect(Self.markers(second.root).isEmpty)
    }

    @Test func aSecondMachineDownloadsNothingTheStoreHolds() async throws {
        let published = try await Self.publish()
        defer { published.origin.stop(); try? FileManager.default.removeItem(at: published.scratch) }
        let before = published.requests.count
        let second = published.scratch.appendingPathComponent("second")
        try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
        _ = try await BucketSync(storage: published.storage, layout: CacheLayout(root: second)).run()
        let hydrator = BucketHydrator(storage: published.storage, store: try BlobStore(root: second))
        let run = try await Self.run(cache: second, origin: published.origin, storage: published.storage, source: hydrator)
        #expect(published.requests.count == before)
        #expect(run.summary.store?.copiedFromStore == 2)
        #expect(try await ManifestSchema.problems([run.manifestURL]) == "", "the store's counts are in the schema")
        #expect(try BlobStore(root: second).contains(published.photo))
    }

    @Test func hydratingRefusesBytesThatAreNotTheirName() async throws {
        let published = try await Self.publish()
        defer { published.origin.stop(); try? FileManager.default.removeItem(at: published.scratch) }
        let path = CacheLayout.blob(published.photo)
        _ = try await published.storage.store(path, bytes: Array("not the photo".utf8), sha256: nil,
                                              contentType: "image/jpeg", replace: true)
        let second = published.scratch.appendingPathComponent("second")
        let store = try BlobStore(root: second)
        let report = await BucketHydrator(storage: published.storage, store: store).hydrate([path, published.photoPack])
        #expect(report.copied == 1)
        #expect(report.failed[path]?.contains("not to their name") == true)
        #expect(!store.contains(published.photo))
        #expect(await BucketHydrator(storage: published.storage, store: store).copy([published.photo], into: store).hashes.isEmpty)
    }

    // MARK: - StoreMaintenance

    @Test func verifyFindsEveryKindOfDamageAndRepairPutsBackVerifiedCopies() async throws {
        let published = try await Self.publish()
        defer { published.origin.stop(); try? FileManager.default.removeItem(at: published.scratch) }
        let storage = published.storage
        let maintenance = StoreMaintenance(storage: storage)
        let clean = try await maintenance.verify(repair: false)
        #expect(clean.problems.isEmpty)
        let uploads = StorePublisher.uploads(of: published.manifest.tweets).map(\.path)
        #expect(clean.blobsChecked == 2)
        #expect(clean.packsChecked == uploads.filter { $0.hasSuffix(CacheLayout.packSuffix) }.count)
        #expect(clean.thumbnailsChecked == uploads.filter { $0.contains(".thumb-") }.count)
        #expect(clean.named == published.summary.uploaded)

        // A thumbnail that decodes but is not the one recorded, a truncated pack, a missing original.
        let thumbnail = published.photoThumbnail
        let other = published.manifest.tweets[0].media[0].thumbnails![1].path
        let otherBytes = try #require(try await storage.get(other))
        _ = try await storage.store(thumbnail, bytes: otherBytes, sha256: nil, contentType: "image/jpeg", replace: true)
        let pack = try #require(try await storage.get(published.photoPack))
        _ = try await storage.store(published.photoPack, bytes: Array(pack.prefix(pack.count - 10)), sha256: nil,
                                    contentType: "application/octet-stream", replace: true)
        try await storage.delete(CacheLayout.blob(published.avatar))

        let found = try await maintenance.verify(repair: false)
        #expect(Set(found.problems.map(\.path)) == [thumbnail, published.photoPack, CacheLayout.blob(published.avatar)])
        #expect(found.problems.first { $0.path == thumbnail }?.message.contains("recorded") == true)
        #expect(found.remaining == 3)

        let repaired = try await maintenance.verify(repair: true, localRoot: published.cache)
        #expect(repaired.problems.allSatisfy { $0.restored })
        #expect(repaired.remaining == 0)
        #expect(try await maintenance.verify(repair: false).problems.isEmpty)
    }

    @Test func repairDeletesWhatNoVerifiedCopyCanReplaceAndNeverWhatItCouldNotRead() async throws {
        let published = try await Self.publish()
        defer { published.origin.stop(); try? FileManager.default.removeItem(at: published.scratch) }
        let thumbnail = published.photoThumbnail
        _ = try await published.storage.store(thumbnail, bytes: Array("garbage".utf8), sha256: nil,
                                              contentType: "image/jpeg", replace: true)
        let report = try await StoreMaintenance(storage: published.storage).verify(repair: true, localRoot: nil)
        #expect(report.problems.map(\.path) == [thumbnail])
        #expect(report.problems.first?.deleted == true)
        #expect(try await published.storage.get(thumbnail) == nil)
    }

    @Test func statsCountsWhatTheStoreHoldsByKind() async throws {
        let published = try await Self.publish()
        defer { published.origin.stop(); try? FileManager.default.removeItem(at: published.scratch) }
        _ = try await published.storage.store("notes/readme.txt", bytes: [1], sha256: nil, contentType: "text/plain", replace: true)
        let stats = try await StoreMaintenance(storage: published.storage).stats()
        let thumbnails = StorePublisher.uploads(of: published.manifest.tweets).filter { $0.path.contains(".thumb-") }.count
        #expect(stats.originals == 2)
        #expect(stats.packs == StorePublisher.uploads(of: published.manifest.tweets).filter { $0.path.hasSuffix(CacheLayout.packSuffix) }.count)
        #expect(stats.thumbnails == thumbnails)
        #expect(stats.manifests == 1)
        #expect(stats.other == 1)
        #expect(stats.location == published.storage.address)
    }

    @Test func gcRemovesOnlyUnreferencedObjectsPastTheGraceAndWaitsForRunsUploading() async throws {
        let published = try await Self.publish()
        defer { published.origin.stop(); try? FileManager.default.removeItem(at: published.scratch) }
        let storage = published.storage
        let stray = CacheLayout.blob(BlobHash(hashing: [9, 9, 9]))
        _ = try await storage.store(stray, bytes: [9, 9, 9], sha256: nil, contentType: "application/octet-stream", replace: false)
        let maintenance = StoreMaintenance(storage: storage)
        // Written just now: a fetch may be about to name it.
        let fresh = try await maintenance.collect(grace: 3600, now: Date(), dryRun: false)
        #expect(fresh.removed.isEmpty && fresh.tooNew == 1)
        // A run uploading (its lease, renewed a minute ago) holds everything back, whatever the age.
        let lease = CacheLayout.leasesFolder + "/.partial-1f.json"
        _ = try await storage.store(lease, bytes: Array("{}".utf8), sha256: nil, contentType: "application/json", replace: true)
        // Junk under leases/ (a failed write check, a stray object) never holds anything back.
        for junk in ["/.write-check-7", "/bogus"] {
            _ = try await storage.store(CacheLayout.leasesFolder + junk, bytes: [1], sha256: nil, contentType: "text/plain", replace: true)
        }
        let held = try await maintenance.collect(grace: 0, now: Date().addingTimeInterval(60), dryRun: false)
        #expect(held.blockedBy.count == 1 && held.blockedBy[0].hasPrefix(lease + " (renewed "), "\(held.blockedBy)")
        #expect(held.text.contains("runs are uploading (" + lease))
        #expect(Set(held.ignoredLeases) == [CacheLayout.leasesFolder + "/.write-check-7", CacheLayout.leasesFolder + "/bogus"])
        #expect(try await storage.size(stray) != nil)
        // A lease nobody renewed for longer than its lifetime is a run that died: it holds nothing back.
        let expired = try await maintenance.collect(
            grace: 3600, now: Date().addingTimeInterval(StoreMaintenance.leaseLifetime + 3600), dryRun: true)
        #expect(expired.blockedBy.isEmpty && expired.removed == [stray])
        #expect(expired.expiredLeases == [lease] && expired.text.contains("would remove the lease of a run that stopped"))
        #expect(try await storage.size(lease) != nil, "a dry run removes no lease")
        // A real collection removes the dead run's lease, so it is not listed forever.
        let swept = try await maintenance.collect(
            grace: 3600, now: Date().addingTimeInterval(StoreMaintenance.leaseLifetime + 3600), dryRun: false)
        #expect(swept.expiredLeases == [lease])
        #expect(try await storage.size(lease) == nil)
        #expect(try await storage.size(stray) == nil)
        _ = try await storage.store(stray, bytes: [9, 9, 9], sha256: nil, contentType: "application/octet-stream", replace: false)
        let dry = try await maintenance.collect(grace: 3600, now: Date().addingTimeInterval(7200), dryRun: true)
        #expect(dry.removed == [stray])
        #expect(try await storage.size(stray) != nil)
        let done = try await maintenance.collect(grace: 3600, now: Date().addingTimeInterval(7200), dryRun: false)
        #expect(done.removed == [stray])
        #expect(try await storage.size(stray) == nil)
        // Everything a manifest names is still there.
        #expect(try await maintenance.verify(repair: false).problems.isEmpty)
    }

    /// Junk under manifests/ is reported and skipped by verify and gc; a run's manifest
    /// damaged in the bucket is put back from the machine that holds it, and until then
    /// gc collects nothing rather than delete what it may name.
    @Test func junkAndDamagedManifestsAreReportedAndSkippedAndADamagedOneIsPutBack() async throws {
        let published = try await Self.publish()
        defer { published.origin.stop(); try? FileManager.default.removeItem(at: published.scratch) }
        let storage = published.storage
        let maintenance = StoreMaintenance(storage: storage)
        // Someone else's tool left it there (this store's own writes refuse such a name).
        let junk = CacheLayout.manifestsFolder + "/a b.json"
        try Data("not json".utf8).write(to: published.scratch.appendingPathComponent("store").appendingPathComponent(junk))
        let run = try #require(try await storage.list(CacheLayout.manifestsFolder + "/").map(\.key)
            .first { StoreMaintenance.isRunManifestName($0) })
        let good = try #require(try await storage.get(run))
        _ = try await storage.store(run, bytes: Array(good.prefix(good.count / 2)), sha256: nil, contentType: "application/json", replace: true)
        let stray = CacheLayout.blob(BlobHash(hashing: [7, 7]))
        _ = try await storage.store(stray, bytes: [7, 7], sha256: nil, contentType: "application/octet-stream", replace: false)

        // verify goes on past both and says what they are.
        let found = try await maintenance.verify(repair: false)
        #expect(found.blobsChecked == 3)
        #expect(found.problems.contains { $0.path == junk && $0.message.contains("skipped") })
        #expect(found.problems.contains { $0.path == run && $0.message.contains("not a manifest") })
        // gc: the junk is skipped, the damaged run's manifest stops it, with the way out said.
        let later = Date().addingTimeInterval(7200)
        let stopped = try await maintenance.collect(grace: 3600, now: later, dryRun: false)
        #expect(stopped.removed.isEmpty && stopped.unreadableManifests.count == 1)
        #expect(stopped.skippedManifests.count == 1 && stopped.skippedManifests[0].hasPrefix(junk))
        #expect(stopped.text.contains("verify --store --repair"))
        #expect(try await storage.size(stray) != nil)
        // With the first machine's cache, gc keeps what its copy names and goes on.
        let withCopy = try await maintenance.collect(grace: 3600, now: later, dryRun: true, localRoot: published.cache)
        #expect(withCopy.unreadableManifests.isEmpty && withCopy.removed == [stray])
        // verify --repair puts the manifest back from that machine (its path-free copy).
        let repaired = try await maintenance.verify(repair: true, localRoot: published.cache)
        #expect(repaired.problems.contains { $0.path == run && $0.restored })
        #expect(try await storage.get(run) == good)
        #expect(repaired.remaining == 1, "only the junk is left: \(repaired.problems)")
        let done = try await maintenance.collect(grace: 3600, now: later, dryRun: false)
        #expect(done.unreadableManifests.isEmpty && done.removed == [stray])
        #expect(try await maintenance.verify(repair: false).problems.map(\.path) == [junk])
    }

    /// `--repair` never counts a wrong object it deleted as fixed when a manifest names it.
    @Test func aDeletedButNamedObjectIsStillCountedAsAProblem() async throws {
        let published = try await Self.publish()
        defer { published.origin.stop(); try? FileManager.default.removeItem(at: published.scratch) }
        let victim = CacheLayout.blob(published.photo)
        _ = try await published.storage.store(victim, bytes: Array("not the photo".utf8), sha256: nil,
                                              contentType: "image/jpeg", replace: true)
        let report = try await StoreMaintenance(storage: published.storage).verify(repair: true, localRoot: nil)
        let problem = try #require(report.problems.first { $0.path == victim })
        #expect(problem.deleted && problem.stillNamed && !problem.restored)
        #expect(report.remaining == 1)
        #expect(report.text.contains("missing until a machine that has it fetches again"))
    }

    /// A run killed mid-upload leaves a multipart upload the bucket keeps (and bills)
    /// but never shows: `gc --store` aborts those of dead runs, and keeps one a live
    /// run may be making.
    @Test func gcAbortsTheUnfinishedUploadsOfDeadRuns() async throws {
        let server = try await RGWServer.running()
        let bucket = try S3Client(location: S3Location(bucket: RGWServer.bucketName("uploads"), prefix: "tc"),
                                  settings: try S3Settings.fromEnvironment(server.environment))
        defer { bucket.shutdown() }
        try await bucket.createBucket()
        let original = CacheLayout.blob(BlobHash(hashing: [7, 7, 7]))
        let id = try await bucket.beginUpload(original)
        let unfinished = try await bucket.unfinishedUploads()
        #expect(unfinished.map(\.key) == [original] && unfinished.map(\.id) == [id])
        let maintenance = StoreMaintenance(storage: bucket)
        let fresh = try await maintenance.collect(grace: 3600, now: Date(), dryRun: false)
        #expect(fresh.abortedUploads.isEmpty, "begun just now: a run may be making it")
        let later = Date().addingTimeInterval(StoreMaintenance.leaseLifetime + 60)
        let dry = try await maintenance.collect(grace: 3600, now: later, dryRun: true)
        #expect(dry.abortedUploads.count == 1 && dry.text.contains("would abort the unfinished upload of a dead run"))
        #expect(try await bucket.unfinishedUploads().count == 1)
        let collected = try await maintenance.collect(grace: 3600, now: later, dryRun: false)
        #expect(collected.abortedUploads.count == 1 && collected.abortedUploads[0].hasPrefix(original + " (begun "))
        #expect(try await bucket.unfinishedUploads().isEmpty)
        #expect(try await bucket.size(original) == nil, "no object appears")
    }
}

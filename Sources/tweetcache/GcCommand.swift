import CacheCore
import ArgumentParser
import BlobStore
import Catalog
import Foundation
import Inspect
import Pipeline

struct GcCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Remove what no manifest references, then evict least recently used blobs to fit a budget.",
        discussion: """
            Safe while a fetch runs in another process: nothing used, fetched or written in \
            the last hour, or since the newest manifest, is removed. With --store, the bucket \
            is collected instead (only with --store itself, not $TWEETCACHE_STORE): originals \
            and derived files no manifest in the bucket names, written over a day ago (other \
            machines upload a run's files before its manifest; a run must finish within the \
            day); the local copy of the bucket is trimmed to --local-max.
            """)

    @Option(name: .long, help: ArgumentHelp("Keep blobs and derived files under this size, e.g. 2GB.", valueName: "SIZE"))
    var maxSize: ByteSize?

    @Option(name: .long, help: ArgumentHelp("Also remove blobs unused for this long, e.g. 30d, 12h.", valueName: "AGE"))
    var olderThan: DurationArgument?

    @Flag(name: .long, help: "Say what would be removed; remove nothing.")
    var dryRun = false

    @Option(name: .long, help: .hidden)
    var grace: Double?

    @OptionGroup var options: InspectOptions

    @OptionGroup var storage: StoreOptions

    func validate() throws {
        if storage.store != nil, maxSize != nil || olderThan != nil {
            throw ValidationError("--max-size and --older-than are for the local cache; with --store, gc removes what no manifest names")
        }
    }

    func run() async throws {
        if let shared = try await storage.open(explicit: true) {
            defer { shared.shutdown() }
            // Opening the local copy trims it to --local-max.
            let cache: Cache
            do { cache = try Cache.open(options.cacheURL) } catch { throw FailureExit.message(error.description, code: 2) }
            _ = try storage.readThrough(shared, layout: cache.layout)
            let report: StoreMaintenance.CollectReport
            do {
                report = try await StoreMaintenance(storage: shared).collect(
                    grace: grace ?? 86_400, dryRun: dryRun, localRoot: options.cacheURL)
            } catch {
                throw FailureExit.message(error.description, code: 2)
            }
            if options.json { print(try InspectJSON.string(report)) } else { emit(report.text) }
            // A run's manifest that cannot be read stopped the collection: say so by the status too.
            if !report.unreadableManifests.isEmpty { throw ExitCode(1) }
            return
        }
        let snapshot = try options.snapshot()
        // A killed run's unfinished manifest and its spills (no run holds them any more).
        if !dryRun { ManifestStreamWriter.sweep(snapshot.cache.layout.manifestsURL) }
        var gcOptions = GarbageCollector.Options(maxBytes: maxSize?.bytes, olderThan: olderThan?.seconds, dryRun: dryRun)
        if let grace { gcOptions.gracePeriod = max(0, grace) }
        let report: GarbageCollector.Report
        do { report = try await GarbageCollector(snapshot: snapshot, options: gcOptions).run() } catch { throw InspectFailure.exit(error) }
        if options.json { print(try InspectJSON.string(report)) } else { emit(report.text(style: options.style)) }
    }
}

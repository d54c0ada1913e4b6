import CacheCore
import ArgumentParser
import BlobStore
import Foundation
import Inspect
import Pipeline

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Bring this machine's view of a shared bucket up to date.",
        discussion: """
            Copies every run manifest in the --store bucket that the local cache lacks into \
            <cache>/manifests/ (what `serve`, the viewer and `tweets` read) and records the \
            URLs they name in the local index. Originals, packs and thumbnails stay in the \
            bucket; `serve --store` reads them on demand through the --local-max copy.
            """)

    /// `--cache` and `--json`, read as every inspect command reads them.
    @OptionGroup var options: InspectOptions

    @OptionGroup var storage: StoreOptions

    func validate() throws {
        if storage.storeText == nil { throw ValidationError("sync needs --store s3://BUCKET[/PREFIX] or $TWEETCACHE_STORE") }
    }

    func run() async throws {
        let root = options.cacheURL.standardizedFileURL
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        guard let shared = try await storage.open() else { return }
        defer { shared.shutdown() }
        let report: BucketSync.Report
        let progress = WorkProgress(unit: .bytes)
        let display = WorkProgressDisplay("sync", progress: progress, enabled: !options.json)
        let cache: Cache
        do { cache = try Cache.open(root) } catch { throw FailureExit.message(error.description, code: 2) }
        do { report = try await BucketSync(storage: shared, layout: cache.layout).run(progress: progress) } catch {
            display.finish()
            throw FailureExit.message(error.description, code: 2)
        }
        display.finish()
        if options.json {
            print(try InspectJSON.string(report))
        } else {
            print("\(shared.address): \(report.listed) runs, \(report.copied) copied, \(report.urls) URLs recorded"
                + (report.tombstones + report.forgotten > 0
                    ? ", \(report.tombstones) tombstones new here, \(report.forgotten) posts forgotten" : ""))
            for (key, why) in report.failed.sorted(by: { $0.key < $1.key }) { print("  \(key): \(why)") }
        }
        if !report.failed.isEmpty { throw ExitCode(1) }
    }
}

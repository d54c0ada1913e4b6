import ArgumentParser
import Foundation
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

    @Option(name: .long, help: "Cache directory (default: $TWEETCACHE_CACHE or ./Cache).")
    var cache: String?

    @Flag(name: .long, help: "Print JSON for scripts instead of text.")
    var json = false

    @OptionGroup var storage: StoreOptions

    func validate() throws {
        if storage.storeText == nil { throw ValidationError("sync needs --store s3://BUCKET[/PREFIX] or $TWEETCACHE_STORE") }
    }

    func run() async throws {
        let path = cache ?? ProcessInfo.processInfo.environment["TWEETCACHE_CACHE"] ?? "Cache"
        let root = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        guard let client = try await storage.client() else { return }
        defer { client.shutdown() }
        let report: BucketSync.Report
        do { report = try await BucketSync(client: client, cacheRoot: root).run() } catch {
            throw CleanExit.message(error.description, code: 2)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print("\(client.location): \(report.listed) runs, \(report.copied) copied, \(report.urls) URLs recorded")
            for (key, why) in report.failed.sorted(by: { $0.key < $1.key }) { print("  \(key): \(why)") }
        }
        if !report.failed.isEmpty { throw ExitCode(1) }
    }
}

import ArgumentParser
import BlobStore
import Catalog
import Foundation
import Inspect

/// `tweetcache reindex`: the catalog made anew from the manifests.
///
/// Every reader brings the catalog up to date by itself (the runs it has not read);
/// this is for when it is suspected of being wrong, or after manifests were edited.
struct ReindexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reindex",
        abstract: "Rebuild the catalog (catalog.sqlite) from the cache's manifests.",
        discussion: "The manifests are the record; the catalog is an index of them that every other command reads.")

    @OptionGroup var options: InspectOptions

    func run() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: options.cacheURL.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FailureExit.message("no cache at \(options.cacheURL.path) (use --cache DIR or $TWEETCACHE_CACHE)", code: 2)
        }
        let started = ContinuousClock.now
        let progress = WorkProgress(unit: .bytes)
        let display = WorkProgressDisplay("reindex", progress: progress, enabled: !options.json)
        defer { display.finish() }
        let report: PostCatalog.RefreshReport
        let totals: PostCatalog.Totals
        do {
            let catalog = try PostCatalog(cacheRoot: options.cacheURL)
            // Nothing else of this process reads the catalog meanwhile.
            report = try catalog.rebuild(progress: progress, alone: true)
            totals = try catalog.totals()
            display.finish()
        } catch {
            throw FailureExit.message(error.description, code: 2)
        }
        let seconds = (ContinuousClock.now - started).components
        let elapsed = Double(seconds.seconds) + Double(seconds.attoseconds) / 1e18
        if options.json {
            struct Output: Encodable {
                var runs: Int
                var posts: Int
                var includedPosts: Int
                var problems: [String]
                var seconds: Double
                enum CodingKeys: String, CodingKey {
                    case runs, posts, problems, seconds
                    case includedPosts = "included_posts"
                }
            }
            print(try InspectJSON.string(Output(runs: totals.runs, posts: totals.posts, includedPosts: totals.includedPosts,
                                                problems: report.problems, seconds: elapsed)))
        } else {
            emit("catalog rebuilt: \(totals.posts) posts (+\(totals.includedPosts) quoted/retweeted) from \(totals.runs) manifest\(totals.runs == 1 ? "" : "s") in \(String(format: "%.2f", elapsed)) s\n")
        }
        for problem in report.problems {
            StandardStreams.error("tweetcache: \(problem)\n")
        }
    }
}

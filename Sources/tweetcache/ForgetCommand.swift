import CacheCore
import ArgumentParser
import Catalog
import Foundation
import Inspect
import ObjectStore
import Pipeline
import TweetModel

struct ForgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Remove posts for good: deleted, suspended or protected ones, an author's, X's compliance results.",
        discussion: """
            Each post, and every repost of it, is removed from every manifest and saved page \
            (other posts keep their bytes), from the catalog (its rows overwritten, its words' \
            index merged, its log cut), and its images once no other post uses them, on disk \
            and, with --store, in the bucket. A tombstone (network, id, time, reason; no \
            content) goes to <cache>/tombstones.jsonl first: later fetches of old pages, syncs \
            and other machines leave the post out. Run with no posts to finish a forget that \
            was cut short.
            """)

    @Argument(help: ArgumentHelp("Posts by id: 1234 (on --network), x:1234, mastodon:1099…, or a Bluesky at:// URI.", valueName: "ID"))
    var ids: [String] = []

    @Option(name: .long, help: ArgumentHelp("The network of bare ids (default x), and the only one --user looks in: x, mastodon, bluesky.", valueName: "NETWORK"))
    var network: String?

    @Option(name: .long, help: ArgumentHelp("Every post of this author (handle or author id).", valueName: "HANDLE"))
    var user: [String] = []

    @Option(name: .long, help: ArgumentHelp("The result file of an X batch compliance job (JSON lines).", valueName: "FILE"))
    var compliance: String?

    @Option(name: .long, help: ArgumentHelp("The reason kept in the tombstones of ids and users (default: deleted, user).", valueName: "TEXT"))
    var reason: String?

    @Flag(name: .long, help: "List what would go; change nothing.")
    var dryRun = false

    @OptionGroup var options: InspectOptions

    @OptionGroup var storage: StoreOptions

    func validate() throws {
        if let network, Network(rawValue: network.lowercased()) == nil {
            throw ValidationError("--network: \(network) is not x, mastodon or bluesky")
        }
    }

    func run() async throws {
        let root = options.cacheURL.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FailureExit.message("no cache at \(root.path) (use --cache DIR or $TWEETCACHE_CACHE)", code: 2)
        }
        let given = network.flatMap { Network(rawValue: $0.lowercased()) }
        let defaultNetwork = given ?? .x
        var requests: [Forgetter.Request] = []
        var problems: [String] = []
        for id in ids {
            guard let key = PostIdentity(argument: id, defaultNetwork: defaultNetwork) else {
                problems.append("\(id.prefix(80).debugDescription): not a post id")
                continue
            }
            requests.append(Forgetter.Request(key: key, reason: reason ?? "deleted"))
        }
        if !user.isEmpty {
            let catalog: PostCatalog
            do { catalog = try PostCatalog.open(cacheRoot: root).catalog } catch {
                throw FailureExit.message(error.description, code: 2)
            }
            for handle in user {
                // Handles are per network: `alice` on X is not `alice` on a Mastodon server.
                let keys: [PostIdentity]
                do { keys = try catalog.postKeys(byAuthor: handle).filter { given == nil || $0.network == given } } catch {
                    throw FailureExit.message(error.description, code: 2)
                }
                if keys.isEmpty { problems.append("--user \(handle): no posts by this author in the cache") }
                requests += keys.map { Forgetter.Request(key: $0, reason: reason ?? "user") }
            }
        }
        if let compliance {
            let read: ComplianceFile
            do { read = try ComplianceFile(path: compliance) } catch {
                throw FailureExit.message("--compliance: \(error.description)", code: 2)
            }
            requests += read.requests
            problems += read.problems
        }
        var shared: (any CacheStorage)?
        let cache: Cache
        do { cache = try Cache.open(root) } catch { throw FailureExit.message(error.description, code: 2) }
        var forgetter = Forgetter(layout: cache.layout)
        // Tests of a forget killed midway (kill -9 after N files rewritten).
        if let stop = ProcessInfo.processInfo.environment["TWEETCACHE_FORGET_KILL_AFTER"].flatMap(Int.init) {
            forgetter.stopAfterRewrites = stop
            forgetter.killsAtStop = true
        }
        if !dryRun, let opened = try await storage.open(writes: true) {
            shared = opened
            forgetter.storage = opened
        }
        defer { shared?.shutdown() }
        var report: Forgetter.Report
        do { report = try await forgetter.run(requests, dryRun: dryRun) } catch {
            throw FailureExit.message(error.description, code: 2)
        }
        report.problems = problems + report.problems
        if options.json { print(try InspectJSON.string(report)) } else { emit(report.text) }
        // A problem of the forget itself (a file it could not read) leaves it marked
        // under way: the next `forget` tries again.
        if !report.problems.isEmpty { throw ExitCode(1) }
    }
}

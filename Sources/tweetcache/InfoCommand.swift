import ArgumentParser
import Foundation
import BlobStore
import Inspect
import Pipeline

struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show one tweet (by id) or one image (by hash prefix or URL).",
        discussion: "An ambiguous hash prefix lists the images it matches (exit status 1).")

    @Argument(help: ArgumentHelp("A tweet id, a hash prefix (4+ hex digits) or a URL.", valueName: "TWEET-ID|HASH-PREFIX|URL"))
    var target: String

    @Option(name: .long, help: .hidden)
    var now: String?

    @OptionGroup var options: InspectOptions

    @OptionGroup var storage: StoreOptions

    func run() async throws {
        var snapshot: CacheSnapshot
        var resolved: ImageResolver.Target
        if storage.storeText != nil {
            // The bucket's runs first, so a tweet or image only the bucket knows resolves;
            // then that image's files, so what is shown is what the bucket holds.
            try FileManager.default.createDirectory(at: options.cacheURL, withIntermediateDirectories: true)
            try await storage.hydrate(cacheRoot: options.cacheURL) { _ in [] }
            snapshot = try options.snapshot()
            do { resolved = try ImageResolver(snapshot: snapshot).resolve(target) } catch { throw InspectFailure.exit(error) }
            if case let .image(hash) = resolved {
                try await storage.hydrate(cacheRoot: options.cacheURL) { BucketHydrator.paths(manifestsIn: $0, hash: hash) }
                snapshot = try options.snapshot()
            }
        } else {
            snapshot = try options.snapshot()
            do { resolved = try ImageResolver(snapshot: snapshot).resolve(target) } catch { throw InspectFailure.exit(error) }
        }
        switch resolved {
        case let .tweet(tweet):
            var details = TweetDetails(tweet: tweet, now: try parseNow(now))
            details.findDuplicates(DuplicateFinder(catalog: snapshot.catalog))
            if options.json { print(try InspectJSON.string(details)) } else { emit(details.text(style: options.style)) }
        case let .image(hash):
            let details = ImageDetails(hash: hash, snapshot: snapshot)
            if options.json { print(try InspectJSON.string(details)) } else { emit(details.text(style: options.style)) }
        }
    }
}

import ArgumentParser
import Foundation
import Inspect

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show one tweet (by id) or one image (by hash prefix or URL).",
        discussion: "An ambiguous hash prefix lists the images it matches (exit status 1).")

    @Argument(help: ArgumentHelp("A tweet id, a hash prefix (4+ hex digits) or a URL.", valueName: "TWEET-ID|HASH-PREFIX|URL"))
    var target: String

    @Option(name: .long, help: .hidden)
    var now: String?

    @OptionGroup var options: InspectOptions

    func run() throws {
        let snapshot = try options.snapshot()
        let resolved: ImageResolver.Target
        do { resolved = try ImageResolver(snapshot: snapshot).resolve(target) } catch { throw InspectFailure.exit(error) }
        switch resolved {
        case let .tweet(tweet):
            let details = TweetDetails(tweet: tweet, now: try parseNow(now))
            if options.json { print(try InspectJSON.string(details)) } else { emit(details.text(style: options.style)) }
        case let .image(hash):
            let details = ImageDetails(hash: hash, snapshot: snapshot)
            if options.json { print(try InspectJSON.string(details)) } else { emit(details.text(style: options.style)) }
        }
    }
}

import ArgumentParser
import Foundation
import Inspect

struct TweetsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tweets", abstract: "List cached tweets, newest first, as the original app did.")

    @Option(name: .long, help: "Only tweets with this hashtag (with or without #).")
    var tag: String?

    @Option(name: .long, help: "Only tweets by this user (screen name, with or without @).")
    var user: String?

    @Option(name: .long, help: ArgumentHelp("Only tweets whose text, author's name or handle, or hashtags hold these words: every word, the last also as the start of one (full-text search, as the web page's search box).", valueName: "words"))
    var text: String?

    @Option(name: .long, help: "At most this many tweets.")
    var limit: Int?

    @Option(name: .long, help: .hidden)
    var now: String?

    @OptionGroup var options: InspectOptions

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
    }

    func run() throws {
        let snapshot = try options.snapshot()
        let list = try TweetList(catalog: snapshot.catalog, tag: tag, user: user, text: text, limit: limit, now: try parseNow(now))
        if options.json {
            print(try InspectJSON.string(list.rows))
        } else {
            emit(list.text(style: options.style))
        }
        for problem in snapshot.manifestProblems {
            StandardStreams.error("tweetcache: \(problem)\n")
        }
    }
}

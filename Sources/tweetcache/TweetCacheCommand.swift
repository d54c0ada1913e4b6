import ArgumentParser
import Pipeline

@main
struct TweetCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tweetcache",
        abstract: "Turn tweet search results into a fast, trustworthy local image cache.",
        version: TweetCacheVersion.string,
        subcommands: [FetchCommand.self, DemoCommand.self])
}

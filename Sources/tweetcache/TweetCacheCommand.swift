import ArgumentParser
import Foundation
import Logging
import Pipeline

struct TweetCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tweetcache",
        abstract: "Turn tweet search results into a fast, trustworthy local image cache.",
        version: TweetCacheVersion.string,
        subcommands: [FetchCommand.self, SearchCommand.self, WatchCommand.self, DemoCommand.self, ServeCommand.self, ThumbCommand.self, TileCommand.self, DecodeCommand.self, PDQCommand.self, DupesCommand.self, MatchCommand.self,
                      TweetsCommand.self, InfoCommand.self, LsCommand.self, ShowCommand.self, HistoryCommand.self,
                      StatsCommand.self, ManifestCommand.self, VerifyCommand.self, GcCommand.self, PinCommand.self, UnpinCommand.self, ForgetCommand.self, ReindexCommand.self, SyncCommand.self, ExportCommand.self, FillBenchCacheCommand.self, PDQBenchCommand.self])

    /// Logs go to standard error at the level `TWEETCACHE_LOG` names (default: warning),
    /// so output stays clean for scripts while `TWEETCACHE_LOG=debug` shows each
    /// transfer's retries and each phase's time.
    static func bootstrapLogging() {
        let level = ProcessInfo.processInfo.environment["TWEETCACHE_LOG"].flatMap { Logger.Level(rawValue: $0) } ?? .warning
        LoggingSystem.bootstrap { label in StderrLogHandler(label: label, level: level) }
    }

    static func runMain() async {
        bootstrapLogging()
        DescriptorLimit.raise()
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}

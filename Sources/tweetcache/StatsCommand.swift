import ArgumentParser
import Foundation
import Inspect

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Tweets, images by kind, bytes stored and saved, derived bytes, failures.")

    @OptionGroup var options: InspectOptions

    func run() throws {
        let snapshot = try options.snapshot()
        let stats: CacheStats
        do { stats = try CacheStats(snapshot: snapshot) } catch { throw InspectFailure.exit(error) }
        if options.json { print(try InspectJSON.string(stats)) } else { emit(stats.text(style: options.style)) }
    }
}

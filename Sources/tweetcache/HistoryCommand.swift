import ArgumentParser
import Foundation
import Inspect

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "The last 100 searches and result files fetched, most recent first.",
        discussion: "`tweetcache fetch --again N` runs entry N again.")

    @Flag(name: .long, help: "Forget the history.")
    var clear = false

    @Option(name: .long, help: .hidden)
    var now: String?

    @OptionGroup var options: InspectOptions

    func run() throws {
        let list: HistoryList
        do { list = try HistoryList(cacheRoot: options.cacheURL) } catch { throw InspectFailure.exit(error) }
        if clear {
            do { try list.history.clear() } catch { throw FailureExit.message(error.description, code: 2) }
            if !options.json { emit("history cleared (\(list.entries.count) entries)\n") } else { print("[]") }
            return
        }
        if options.json { print(try InspectJSON.string(list.rows)) } else { emit(list.text(now: try parseNow(now), style: options.style)) }
    }
}

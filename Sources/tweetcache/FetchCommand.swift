import ArgumentParser
import Foundation
import Inspect
import LiveSearch
import Pipeline

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Cache the avatars and media of tweets in search results.",
        discussion: """
            RESULTS are Twitter/X API responses saved as served: v1.1 search/tweets, v2 \
            tweets/search/recent (with includes), Premium search, timelines, single tweets, \
            or JSON Lines of any of these (as twarc writes). Use - for standard input. \
            The format is detected from the content.
            """)

    @Argument(help: ArgumentHelp("Search-result files, or - for standard input.", valueName: "RESULTS"))
    var results: [String] = []

    @Option(name: .long, help: ArgumentHelp("Fetch the results of history entry N again (see `tweetcache history`).", valueName: "N"))
    var again: Int?

    @OptionGroup var options: FetchOptions

    func validate() throws {
        if again == nil, results.isEmpty { throw ValidationError("give RESULTS files (or -), or --again N") }
        if again != nil, !results.isEmpty { throw ValidationError("--again N takes no RESULTS") }
    }

    func run() async throws {
        let started = Date()
        var paths = results
        var replayed: SearchHistory.Entry?
        if let again {
            do {
                let history = try HistoryList(cacheRoot: options.cacheURL)
                paths = try history.replayFiles(number: again, cacheRoot: options.cacheURL)
                replayed = history.entries[again - 1]
            } catch {
                throw InspectFailure.exit(error)
            }
        }
        var inputs: [ResultsInput] = []
        for path in paths {
            do { inputs.append(try ResultsInput.read(path)) } catch {
                throw ValidationError(error.description)
            }
        }
        let report = try await RunCommand.run(inputs: inputs, options: try options.pipelineOptions(), flags: options)
        recordHistory(paths: paths, replayed: replayed, started: started, tweets: report.summary.tweets)
        if report.failed(strict: options.strict) { throw ExitCode(1) }
    }

    /// Result files go into the history like searches, so `fetch --again N` can re-read
    /// them; standard input cannot be read twice and is not recorded.
    private func recordHistory(paths: [String], replayed: SearchHistory.Entry?, started: Date, tweets: Int) {
        let files = paths.filter { $0 != "-" }.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        guard !files.isEmpty else { return }
        var entry = SearchHistory.Entry(query: files.joined(separator: " "), api: SearchHistory.Entry.filesAPI,
                                        at: started, pages: files.count, tweets: tweets, files: files)
        if var replayed {
            replayed.at = started
            replayed.files = files
            replayed.tweets = tweets
            entry = replayed
        }
        do { try SearchHistory(cacheRoot: options.cacheURL).record(entry) } catch {
            StandardStreams.error("tweetcache: \(error.description)\n")
        }
    }
}

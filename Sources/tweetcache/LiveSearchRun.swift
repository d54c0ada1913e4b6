import ArgumentParser
import Catalog
import Foundation
import LiveSearch
import Pipeline
import TweetModel

/// One search and the run that caches its results: `search` runs it once, `watch`
/// once per query per poll. The search asks only for what is newer than what the
/// cache holds of it (unless `all`), and its run's manifest moves that boundary on.
struct LiveSearchRun {
    var query: String
    var network: Network
    var instance: String?
    var live: LiveSearchOptions
    var count: Int
    var retweets: Bool
    var all: Bool
    var pin: Bool
    var options: FetchOptions

    /// How it ended, for the command's exit status (`watch` goes on either way).
    enum Ending: Equatable {
        /// Done; `failed` when the run did not finish its work (see ``RunCommand/Report/failed(strict:)``).
        case done(failed: Bool)
        /// The search stopped on an error after some pages (those are cached).
        case failed
        /// Stopped by a rate limit longer than `--max-wait` (the pages so far are cached).
        case rateLimited
    }

    /// How a search that cannot start ends the command: status 2 and what to do. The
    /// library says what is missing; the flags that give it are the CLI's to name.
    static func exit(for error: LiveSearchError) -> ExitCode {
        guard error == .missingToken else { return FailureExit.message(error.description, code: 2) }
        return FailureExit.message(
            "\(error.description) (set $\(BearerToken.environmentVariable) or pass --token-file PATH)", code: 2)
    }

    func run() async throws -> Ending {
        let searchAPI = SearchAPI(network: network, x: live.api)
        let cache = options.cacheURL
        let started = Date()
        if pin {
            do {
                try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
                try CollectionPins(cacheRoot: cache).pin(query.trimmingCharacters(in: .whitespacesAndNewlines))
            } catch {
                throw FailureExit.message("--pin: \(error)", code: 2)
            }
        }
        var client: SearchClient
        do {
            let environment = ProcessInfo.processInfo.environment
            let credentials = try searchAPI.credentials(tokenFile: live.tokenFile, environment: environment)
            var search = SearchOptions(cacheRoot: cache)
            search.api = searchAPI
            search.blueskyLogin = credentials.blueskyLogin
            search.baseURL = instance ?? live.apiBase
            search.count = count
            search.maxWait = live.maxWait.duration
            search.attempts = options.attempts
            search.fetch.connectTimeout = .seconds(options.connectTimeout)
            search.fetch.lowSpeedTime = .seconds(options.stallTimeout)
            search.fetch.certificateAuthorities = options.certificateAuthorities
            let searchQuery = try SearchQuery(query, includeRetweets: retweets)
            client = try SearchClient(query: searchQuery, token: credentials.token, options: search)
            // A search repeated asks only for what is newer than what the cache holds of it.
            if !all, let held = SearchCommand.held(by: client, cache: cache) {
                client.shutdown()
                search.since = held
                client = try SearchClient(query: searchQuery, token: credentials.token, options: search)
            }
        } catch {
            throw Self.exit(for: error)
        }

        let reporter = SearchCommand.Reporter(quiet: options.quiet || options.json)
        reporter.line("search: \(client.endpointName) for \(client.apiQuery), up to \(count) results"
            + (client.options.since.map { " newer than \($0.newestID ?? $0.isoTime ?? "") (held; --all for every one)" } ?? ""))
        let outcome = await client.run(started: started) { reporter.show($0) }
        client.shutdown()

        do { try SearchHistory(cacheRoot: cache).record(outcome, of: client, started: started) } catch {
            reporter.warn("search: \(error.description)")
        }
        let saved = outcome.pages.isEmpty ? "" : "; pages saved in \(SearchCommand.relative(outcome.pages[0].file.deletingLastPathComponent().path))/"
        let summary = "search: \(outcome.pages.count) page\(outcome.pages.count == 1 ? "" : "s"), \(outcome.tweets) results\(saved)"
        switch outcome.stop {
        case .countReached, .endOfResults, .reachedHeld:
            reporter.line("\(summary) (\(outcome.stop))")
        case .rateLimited:
            reporter.warn("\(summary); stopped early: \(outcome.stop) (or allow a longer wait with --max-wait)")
        case .malformedPage:
            reporter.warn("\(summary); stopped early: \(outcome.stop)")
        case let .failed(error):
            let hint = SearchCommand.hint(for: error)
            if outcome.pages.isEmpty { throw FailureExit.message(error.description + hint, code: 2) }
            reporter.warn("\(summary); stopped early: \(error.description)\(hint)")
        }

        // Read back from the saved files a piece at a time, as `fetch` reads them.
        let inputs: [ResultsInput]
        do { inputs = try SearchState.inputs(of: outcome, from: client) } catch {
            throw FailureExit.message(error.description, code: 2)
        }
        let report = try await RunCommand.run(inputs: inputs, options: try options.pipelineOptions(), flags: options)
        switch outcome.stop {
        case .failed: return .failed
        case .rateLimited: return .rateLimited
        default: return .done(failed: report.failed(strict: options.strict))
        }
    }

}

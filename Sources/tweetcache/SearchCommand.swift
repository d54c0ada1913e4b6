import ArgumentParser
import Catalog
import Foundation
import MediaFetch
import LiveSearch
import Pipeline
import TweetModel
#if canImport(Glibc)
import Glibc
#endif

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search X, Mastodon or Bluesky and cache the media of the results.",
        discussion: """
            QUERY is a hashtag (#ucd), a user (@name, searched as from:name) or any API query. \
            Retweets are left out unless --retweets. The bearer token comes from \
            $TWEETCACHE_BEARER_TOKEN or --token-file and is never printed or saved.

            --network mastodon --instance https://INSTANCE: #tag reads the public tag \
            timeline and @user@host that account's statuses (no token needed); other text \
            uses /api/v2/search, which needs $MASTODON_ACCESS_TOKEN. --network bluesky: \
            app.bsky.feed.searchPosts on the public AppView (--api-base for another); \
            #tag and from:handle (or @handle) are the service's own operators. With \
            $BLUESKY_HANDLE and $BLUESKY_APP_PASSWORD it signs in first (at bsky.social \
            unless --api-base) and refreshes the session when it expires.

            Every page is saved as served under <cache>/results/, so `tweetcache fetch` can \
            re-run the search offline; the search is added to <cache>/history.json. Rate \
            limits are waited out up to --max-wait; past that the search stops with the pages \
            it has and says when to retry.

            Exit status: 0 done; 1 with --strict when URLs failed or input had problems; \
            2 the search could not run (token, access, query, server); 3 stopped early by a \
            rate limit (the pages so far are cached).
            """)

    @Argument(help: ArgumentHelp("A hashtag, @user or API query (quote it: # starts a shell comment).", valueName: "QUERY"))
    var query: String

    @Option(name: .long, help: ArgumentHelp("x (default), mastodon or bluesky.", valueName: "NETWORK"))
    var network = Network.x

    @Option(name: .long, help: ArgumentHelp("The Mastodon instance to ask, e.g. https://mastodon.social.", valueName: "URL"))
    var instance: String?

    @OptionGroup var live: LiveSearchOptions

    @Option(name: .long, help: "Results wanted in all, over as many pages as needed.")
    var count: Int = 100

    @Flag(name: .long, help: "Keep retweets in the results.")
    var retweets = false

    @Flag(name: .long, help: "Page the whole query again, not only the posts newer than those the cache holds.")
    var all = false

    @Flag(name: .long, help: "Pin the query's collection: gc --max-size never evicts its media (see `tweetcache pin`).")
    var pin = false


    @OptionGroup var options: FetchOptions

    func validate() throws {
        if network == .mastodon, instance == nil {
            throw ValidationError("--network mastodon needs --instance https://INSTANCE")
        }
        if instance != nil, network != .mastodon { throw ValidationError("--instance is for --network mastodon") }
        if live.apiBase != nil, network == .mastodon { throw ValidationError("--network mastodon takes --instance, not --api-base") }
        guard (1...100_000).contains(count) else { throw ValidationError("--count must be between 1 and 100000") }
    }

    func run() async throws {
        let searchAPI = SearchAPI(network: network, x: live.api)
        let cache = options.cacheURL
        let started = Date()
        if pin {
            do {
                try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
                try CollectionPins(cacheRoot: cache).pin(query.trimmingCharacters(in: .whitespacesAndNewlines))
            } catch {
                throw CleanExit.message("--pin: \(error)", code: 2)
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
            if !all, let held = Self.held(by: client, cache: cache) {
                client.shutdown()
                search.since = held
                client = try SearchClient(query: searchQuery, token: credentials.token, options: search)
            }
        } catch LiveSearchError.missingToken {
            // The library says what is missing; the flags that give it are the CLI's to name.
            throw CleanExit.message(
                "\(LiveSearchError.missingToken.description) (set $\(BearerToken.environmentVariable) or pass --token-file PATH)",
                code: 2)
        } catch {
            throw CleanExit.message(error.description, code: 2)
        }

        let reporter = Reporter(quiet: options.quiet || options.json)
        reporter.line("search: \(client.endpointName) for \(client.apiQuery), up to \(count) results"
            + (client.options.since.map { " newer than \($0.newestID ?? $0.isoTime ?? "") (held; --all for every one)" } ?? ""))
        let outcome = await client.run(started: started) { reporter.show($0) }
        client.shutdown()

        do { try SearchHistory(cacheRoot: cache).record(outcome, of: client, started: started) } catch {
            reporter.warn("search: \(error.description)")
        }
        let saved = outcome.pages.isEmpty ? "" : "; pages saved in \(Self.relative(outcome.pages[0].file.deletingLastPathComponent().path))/"
        let summary = "search: \(outcome.pages.count) page\(outcome.pages.count == 1 ? "" : "s"), \(outcome.tweets) results\(saved)"
        switch outcome.stop {
        case .countReached, .endOfResults, .reachedHeld:
            reporter.line("\(summary) (\(outcome.stop))")
        case .rateLimited:
            reporter.warn("\(summary); stopped early: \(outcome.stop) (or allow a longer wait with --max-wait)")
        case .malformedPage:
            reporter.warn("\(summary); stopped early: \(outcome.stop)")
        case let .failed(error):
            let hint = Self.hint(for: error)
            if outcome.pages.isEmpty { throw CleanExit.message(error.description + hint, code: 2) }
            reporter.warn("\(summary); stopped early: \(error.description)\(hint)")
        }

        // Read back from the saved files a piece at a time, as `fetch` reads them.
        let inputs: [ResultsInput]
        do { inputs = try SearchState.inputs(of: outcome, from: client) } catch {
            throw CleanExit.message(error.description, code: 2)
        }
        let report = try await RunCommand.run(inputs: inputs, options: try options.pipelineOptions(), flags: options)
        switch outcome.stop {
        case .failed: throw ExitCode(2)
        case .rateLimited: throw ExitCode(3)
        default: if report.failed(strict: options.strict) { throw ExitCode(1) }
        }
    }

    /// What the cache holds of the client's search; nil when nothing, or when it cannot
    /// be read (said, and the search asks for everything, as a first one does).
    static func held(by client: SearchClient, cache: URL) -> SearchBoundary? {
        do { return try SearchState.held(by: client, cacheRoot: cache) } catch {
            StandardStreams.error("tweetcache: could not read what the cache holds of this search (\(error)); asking for everything\n")
            return nil
        }
    }

    /// The flag that helps, where the library's error says what is wrong.
    static func hint(for error: LiveSearchError) -> String {
        if case .forbidden(api: .v1_1, _, _) = error { return " (try --api v2)" }
        return ""
    }

    static func relative(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(cwd) ? String(path.dropFirst(cwd.count)) : path
    }
}

extension SearchCommand {
    /// The search's progress on standard error: a line per page, and for rate-limit waits
    /// a countdown redrawn in place on a terminal, or one line otherwise (logs stay short).
    final class Reporter: Sendable {
        let quiet: Bool
        let isTTY: Bool

        init(quiet: Bool) {
            self.quiet = quiet
            self.isTTY = isatty(STDERR_FILENO) == 1
        }

        func line(_ text: String) {
            guard !quiet else { return }
            write(text + "\n")
        }

        /// Shown even when quiet: it changes what the run did.
        func warn(_ text: String) { write(text + "\n") }

        func show(_ event: SearchEvent) {
            switch event {
            case let .pageSaved(page):
                if let problem = page.problem {
                    warn("search: page \(page.number) is not a results page (\(problem)); saved as \(SearchCommand.relative(page.file.path))")
                } else {
                    line("search: page \(page.number): \(page.tweets) results")
                }
            case let .retrying(page, reason, attempt, of, delay):
                line("search: page \(page): \(reason); retry \(attempt + 1)/\(of) in \(Self.seconds(delay))")
            case let .waitStarted(until, cause):
                // Always said, and kept on screen: it explains where the time went.
                let why = cause == .tooManyRequests ? "rate limited (HTTP 429)" : "rate-limit window used up"
                let wait = Self.seconds(.milliseconds(Int(max(0, until.timeIntervalSinceNow) * 1000)))
                warn("search: \(why); waiting \(wait) until \(Self.clock(until)) for the reset")
            case let .waitTick(remaining):
                if isTTY, !quiet { write("\r\u{1B}[2Ksearch: resuming in \(Self.seconds(remaining)) (Ctrl-C to stop)") }
            case .waitEnded:
                if isTTY, !quiet { write("\r\u{1B}[2K") }
            }
        }

        private func write(_ text: String) { StandardStreams.error(text) }

        static func seconds(_ d: Duration) -> String {
            let s = Int((Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18).rounded(.up))
            return s >= 60 ? "\(s / 60)m\(String(format: "%02d", s % 60))s" : "\(s)s"
        }

        static func clock(_ date: Date) -> String {
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.dateFormat = "HH:mm:ss"
            return f.string(from: date)
        }
    }
}

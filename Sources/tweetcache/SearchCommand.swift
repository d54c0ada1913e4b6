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
        let run = LiveSearchRun(query: query, network: network, instance: instance, live: live, count: count,
                                retweets: retweets, all: all, pin: pin, options: options)
        switch try await run.run() {
        case .failed: throw ExitCode(2)
        case .rateLimited: throw ExitCode(3)
        case let .done(failed): if failed { throw ExitCode(1) }
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

import ArgumentParser
import Catalog
import Dispatch
import Foundation
import LiveSearch
import Pipeline
import Synchronization
import TweetModel
#if canImport(Glibc)
import Glibc
#endif

/// `tweetcache watch QUERY...`: keeps collections current. Every `--every`, each query
/// is searched for what is newer than what the cache holds of it (one request when
/// nothing is new) and its results cached, each poll's run writing its manifest, so
/// `serve` and the readers list the new posts as soon as it is written.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Keep searches current: poll each query for what is new, and cache it, until stopped.",
        discussion: """
            Each poll asks every query only for posts newer than the newest the cache holds \
            of it (as a repeated `search` does), within the rate limits it reads, waiting \
            no longer than --max-wait for a reset; a poll that fails is said and the next \
            one tries again. Each poll's results are cached by one run, which writes its \
            manifest. SIGINT or SIGTERM stops it after the poll under way is written; a \
            kill loses nothing a manifest holds, and the next watch (or search) goes on \
            from there. Forgotten posts (tweetcache forget) stay out.

            With --stream it follows the network's stream instead: X's v2 filtered stream \
            (its rules made from the queries, tagged tweetcache:QUERY; rules of ours no \
            longer watched are removed), a Mastodon instance's hashtag streams, or \
            Bluesky's Jetstream (tags, words and @handles matched here). Posts are cached \
            in batches of --batch-posts or every --batch-interval, each batch one run and one \
            manifest; posts the network deletes are forgotten. A silent stream (no \
            heartbeat for 30 s) is reconnected with backoff; Jetstream resumes from its \
            saved cursor. SIGINT or SIGTERM caches the open batch and saves the cursors; \
            after a kill, the next watch first caches what the last one had received.

            Exit status: 0 stopped by a signal or after --polls; 2 when the first poll \
            could not run, or the stream refused (token, access, query).
            """)

    @Argument(help: ArgumentHelp("Hashtags, @users or API queries to keep current.", valueName: "QUERY"))
    var queries: [String]

    @Option(name: .long, help: ArgumentHelp("x (default), mastodon or bluesky.", valueName: "NETWORK"))
    var network = Network.x

    @Option(name: .long, help: ArgumentHelp("The Mastodon instance to ask, e.g. https://mastodon.social.", valueName: "URL"))
    var instance: String?

    @Option(name: .long, help: ArgumentHelp("Time between the starts of two polls, e.g. 5m, 30s (0: one after another).", valueName: "DURATION"))
    var every = DurationArgument(argument: "5m")!

    @Option(name: .long, help: ArgumentHelp("Stop after this many polls (default: until stopped).", valueName: "N"))
    var polls: Int?

    @Option(name: .long, help: "Results wanted per query per poll, at most.")
    var count: Int = 100

    @Flag(name: .long, help: "Keep retweets in the results.")
    var retweets = false

    @Flag(name: .long, help: "Pin the queries' collections: gc --max-size never evicts their media.")
    var pin = false

    @Flag(name: .long, help: "Follow the network's stream instead of polling: X's filtered stream, Mastodon's hashtag streams, Bluesky's Jetstream.")
    var stream = false

    @Option(name: .long, help: ArgumentHelp("With --stream: cache a batch (one run, one manifest) at this many posts.", valueName: "N"))
    var batchPosts = 1000

    @Option(name: .long, help: ArgumentHelp("With --stream: cache a batch at most this long after its first event, e.g. 60s.", valueName: "DURATION"))
    var batchInterval = DurationArgument(argument: "60s")!

    @Option(name: .long, help: ArgumentHelp("With --stream --network bluesky: the Jetstream subscribe URL (ws:// or wss://).", valueName: "URL"))
    var jetstream: String?

    @OptionGroup var live: LiveSearchOptions

    @OptionGroup var options: FetchOptions

    func validate() throws {
        if network == .mastodon, instance == nil { throw ValidationError("--network mastodon needs --instance https://INSTANCE") }
        if instance != nil, network != .mastodon { throw ValidationError("--instance is for --network mastodon") }
        guard (1...100_000).contains(count) else { throw ValidationError("--count must be between 1 and 100000") }
        if let polls, polls < 1 { throw ValidationError("--polls must be at least 1") }
        guard every.duration <= .seconds(7 * 86_400) else { throw ValidationError("--every: at most 7 days") }
        guard (1...1_000_000).contains(batchPosts) else { throw ValidationError("--batch-posts must be between 1 and 1000000") }
        guard batchInterval.duration >= .seconds(1), batchInterval.duration <= .seconds(86_400) else {
            throw ValidationError("--batch-interval: between 1s and 24h")
        }
        if jetstream != nil, !(stream && network == .bluesky) { throw ValidationError("--jetstream is for --stream --network bluesky") }
        if stream, polls != nil { throw ValidationError("--polls is for polling; --stream follows until stopped") }
    }

    func run() async throws {
        let stop = StopSignal()
        stop.install()
        if stream {
            try await WatchStreams(command: self).run(stop: stop)
            return
        }
        var poll = 0
        while !stop.requested {
            poll += 1
            let started = ContinuousClock.now
            StandardStreams.error("watch: poll \(poll) at \(SearchCommand.Reporter.clock(Date()))\n")
            for query in queries where !stop.requested {
                let search = LiveSearchRun(query: query, network: network, instance: instance, live: live, count: count,
                                           retweets: retweets, all: false, pin: pin, options: options)
                do {
                    switch try await search.run() {
                    case .done: break
                    case .failed, .rateLimited: StandardStreams.error("watch: \(query): tried again at the next poll\n")
                    }
                } catch {
                    // What a first poll cannot do (a token, a query), no later one will.
                    if poll == 1 { throw error }
                    // A FailureExit said its message already; anything else is said here.
                    if !(error is ExitCode) { StandardStreams.error("watch: \(query): \(error)\n") }
                    StandardStreams.error("watch: \(query): tried again at the next poll\n")
                }
            }
            if let polls, poll >= polls { break }
            let next = started + every.duration
            if !stop.requested, next > ContinuousClock.now {
                StandardStreams.error("watch: next poll at \(SearchCommand.Reporter.clock(Date().addingTimeInterval((next - ContinuousClock.now).secondsDouble)))\n")
                await stop.sleep(until: next)
            }
        }
        StandardStreams.error("watch: stopped after \(poll) poll\(poll == 1 ? "" : "s")\n")
    }
}

/// SIGINT and SIGTERM as a request to stop between polls: the poll under way is
/// finished (its run writes its manifest), the wait for the next one ends at once.
final class StopSignal: Sendable {
    private let state = Mutex<(requested: Bool, wait: Task<Void, Never>?)>((false, nil))

    var requested: Bool { state.withLock { $0.requested } }

    /// The signal sources, alive as long as the process.
    nonisolated(unsafe) private static var installed: [any DispatchSourceSignal] = []
    private static func keep(_ source: any DispatchSourceSignal) { installed.append(source) }

    func install() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.request() }
            source.resume()
            // Kept for the life of the process (installed once, from the command).
            nonisolated(unsafe) let kept = source
            StopSignal.keep(kept)
        }
    }

    func request() {
        let (wait, again) = state.withLock { s -> (Task<Void, Never>?, Bool) in
            defer { s.requested = true }
            return (s.wait, s.requested)
        }
        // A second signal: stop now (what a manifest holds is kept; the poll under way
        // is asked again by the next watch).
        if again {
            StandardStreams.error("watch: stopped at once\n")
            exit(130)
        }
        StandardStreams.error("watch: stopping after the work under way\n")
        wait?.cancel()
    }

    /// Stops without a signal (every stream ended): the same as a first signal, unsaid.
    func end() {
        let wait = state.withLock { s -> Task<Void, Never>? in
            s.requested = true
            return s.wait
        }
        wait?.cancel()
    }

    /// Returns once a stop is requested.
    func waitForRequest() async {
        while !requested { await sleep(until: .now + .seconds(3600)) }
    }

    /// Waits until `deadline`, or until a stop is requested (which cancels the wait).
    func sleep(until deadline: ContinuousClock.Instant) async {
        let wait = Task<Void, Never> { _ = try? await Task.sleep(until: deadline, clock: .continuous) }
        let stopped = state.withLock { s -> Bool in
            s.wait = wait
            return s.requested
        }
        if stopped { wait.cancel() }
        await wait.value
        state.withLock { $0.wait = nil }
    }
}

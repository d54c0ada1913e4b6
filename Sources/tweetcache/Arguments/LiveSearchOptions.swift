import ArgumentParser
import LiveSearch
import MediaFetch

/// What asking a search API takes, the same for `search` and for `serve`'s live
/// searches: the token file, the X API version, another base URL, the longest
/// rate-limit wait.
struct LiveSearchOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Read the bearer token from this file instead of $TWEETCACHE_BEARER_TOKEN.", valueName: "PATH"))
    var tokenFile: String?

    @Option(name: .long, help: ArgumentHelp("X only: v2 (recent search) or v1.1 (search/tweets).", valueName: "VERSION"))
    var api = SearchAPI.v2

    @Option(name: .long, help: ArgumentHelp("Base URL of the API or a compatible server (default: X's).", valueName: "URL"))
    var apiBase: String?

    @Option(name: .long, help: ArgumentHelp("Longest wait for a rate-limit reset, e.g. 15m, 90s, 0 (at most 7 days).", valueName: "DURATION"))
    var maxWait = DurationArgument(argument: "15m")!

    func validate() throws {
        guard maxWait.duration <= DurationText.longestWait else { throw ValidationError("--max-wait: at most 7 days") }
    }
}

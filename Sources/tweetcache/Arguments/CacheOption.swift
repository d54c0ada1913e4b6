import ArgumentParser
import Foundation

/// `--cache DIR`: one declaration for every command that works on a cache.
struct CacheOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Cache directory (default: $TWEETCACHE_CACHE or ./Cache).", valueName: "DIR"))
    var cache: String?

    /// `--cache`, else `$TWEETCACHE_CACHE`, else `./Cache`.
    var url: URL {
        let path = cache ?? ProcessInfo.processInfo.environment["TWEETCACHE_CACHE"] ?? "Cache"
        return URL(fileURLWithPath: path, isDirectory: true)
    }
}

import CacheCore
import ArgumentParser
import Inspect
import LiveSearch
import Pipeline
import TweetModel

// The libraries' own option values, read straight from the command line: a value
// they do not name is refused with the list of those they do.

extension TileMode: ExpressibleByArgument {}
extension ColorMode: ExpressibleByArgument {}

/// `--api`: `v2` or `v1.1` (``SearchAPI/init(argument:)``; Mastodon and Bluesky are chosen by their own options).
extension SearchAPI: ExpressibleByArgument {
    public static var allValueStrings: [String] { [SearchAPI.v2.rawValue, SearchAPI.v1_1.rawValue] }
}

/// `search --network`: whose API is asked (`x`, `mastodon`, `bluesky`), the same
/// ``Network`` the parsers tag posts with.
extension Network: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

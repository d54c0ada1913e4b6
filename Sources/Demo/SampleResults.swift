import Foundation

/// Realistic search results for the built-in demo, which must run with no internet.
///
/// Two documents as the APIs serve them, a v1.1 `search/tweets` page and a v2
/// `tweets/search/recent` page for `#ucd`, plus the list of files their URLs point at.
/// Everything comes from one seeded generator and a fixed reference date, so a given
/// seed yields byte-identical JSON on every machine and every run: demo output can be
/// compared, cached and tested.
///
/// The documents exercise what real results contain: a dozen authors whose avatars
/// many tweets share, tweets with zero to four photos in the sizes Twitter serves
/// originals at (up to 4096x3072), a video with several MP4 bitrates and an HLS
/// playlist, an animated GIF, a retweet and a quote whose media belong to the inner
/// tweet, emoji and HTML-escaped characters before entities, and entity offsets counted
/// in code points of the escaped text, as the APIs count them.
public struct SampleResults: Sendable {
    /// The v1.1 `search/tweets` page (extended mode).
    public let v1Search: Data
    /// The v2 `tweets/search/recent` page with `includes`.
    public let v2Search: Data
    /// Every file the documents' media and avatar URLs name, each once.
    public let assets: [SampleAsset]

    /// The moment the sample "was fetched": tweets are spread over the days before it.
    /// Fixed (2024-03-15T12:00:00Z) so the output never depends on the clock.
    public static let referenceDate = Date(timeIntervalSince1970: 1_710_504_000)

    /// Tweets in each document's results (not counting quoted or retweeted originals).
    public static let tweetsPerDocument = 30

    /// Builds the sample; the same seed always gives the same bytes.
    public static func make(seed: UInt64 = 1) -> SampleResults {
        var generator = SampleGenerator(seed: seed)
        return generator.make()
    }
}

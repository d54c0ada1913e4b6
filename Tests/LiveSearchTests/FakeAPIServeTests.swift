import Foundation
import Testing
import TestSupport

/// Runs the fake X API by hand, for trying `tweetcache search` against it:
///
///     TWEETCACHE_FAKE_API_SERVE=300 swift test --filter FakeAPIServeTests
///
/// prints the base URL and token, then serves for that many seconds. Optional:
/// `TWEETCACHE_FAKE_API_TWEETS` (corpus size), `TWEETCACHE_FAKE_API_RATE_LIMIT` and
/// `TWEETCACHE_FAKE_API_WINDOW` (requests per window, window seconds),
/// `TWEETCACHE_FAKE_API_PORT_FILE` (where to write the port).
@Suite struct FakeAPIServeTests {
    static let seconds = ProcessInfo.processInfo.environment["TWEETCACHE_FAKE_API_SERVE"].flatMap(Int.init)

    @Test(.enabled(if: seconds != nil, "set TWEETCACHE_FAKE_API_SERVE=seconds to serve the fake API by hand"))
    func serve() async throws {
        let seconds = try #require(Self.seconds)
        var config = FakeSearchAPI.Configuration()
        let env = ProcessInfo.processInfo.environment
        if let total = env["TWEETCACHE_FAKE_API_TWEETS"].flatMap(Int.init) { config.totalTweets = total }
        // A small window (e.g. 2 requests per 5 s) shows the client waiting for resets.
        if let limit = env["TWEETCACHE_FAKE_API_RATE_LIMIT"].flatMap(Int.init) { config.rateLimit = limit }
        if let window = env["TWEETCACHE_FAKE_API_WINDOW"].flatMap(Double.init) { config.rateWindow = window }
        let fake = try FakeSearchAPI(config)
        let banner = """
            fake X API serving at \(fake.baseURL) for \(seconds) s (\(config.totalTweets) tweets)
              export TWEETCACHE_BEARER_TOKEN=\(config.token)
              tweetcache search '#ucd' --api-base \(fake.baseURL) --mirror \(fake.mirrorSpec) --count 250\n
            """
        FileHandle.standardError.write(Data(banner.utf8))
        if let path = ProcessInfo.processInfo.environment["TWEETCACHE_FAKE_API_PORT_FILE"] {
            try Data(String(fake.server.port).utf8).write(to: URL(fileURLWithPath: path))
        }
        try await Task.sleep(for: .seconds(seconds))
        FileHandle.standardError.write(Data("fake X API: served \(fake.apiRequests.count) API and \(fake.mediaRequests) media requests\n".utf8))
        #expect(fake.server.port > 0)
    }
}

// tc-fake-api: the fake X API of the tests, served by hand, for trying
// `tweetcache search` against it without a token or the internet. Not a user tool.
//
//   swift run tc-fake-api [SECONDS] [--tweets N] [--rate-limit N] [--window SECONDS] [--port-file PATH]
//
// Prints the base URL, the token and a command to try, then serves for SECONDS
// (default 300). A small window (e.g. --rate-limit 2 --window 5) shows the client
// waiting for resets.

import Foundation
import TestSupport

let arguments = ToolArguments(tool: "tc-fake-api")
var config = FakeSearchAPI.Configuration()
config.totalTweets = arguments.number("--tweets", config.totalTweets)
config.rateLimit = arguments.number("--rate-limit", config.rateLimit)
config.rateWindow = arguments.number("--window", config.rateWindow)
let portFile = arguments.options["--port-file"]
var seconds = 300
if let text = arguments.positional.first {
    guard let value = Int(text) else { arguments.fail("SECONDS must be a number, got \(text)") }
    seconds = value
}

let fake: FakeSearchAPI
do { fake = try FakeSearchAPI(config) } catch { arguments.fail("cannot start: \(error)") }
print("""
    fake X API serving at \(fake.baseURL) for \(seconds) s (\(config.totalTweets) tweets)
      export TWEETCACHE_BEARER_TOKEN=\(config.token)
      tweetcache search '#ucd' --api-base \(fake.baseURL) --mirror \(fake.mirrorSpec) --count 250
    """)
fflush(nil)
if let portFile {
    do { try Data(String(fake.server.port).utf8).write(to: URL(fileURLWithPath: portFile)) } catch { arguments.fail("\(error)") }
}
Thread.sleep(forTimeInterval: TimeInterval(seconds))
print("fake X API: served \(fake.apiRequests.count) API and \(fake.mediaRequests) media requests")

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

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("tc-fake-api: \(message)\n".utf8))
    exit(2)
}

/// `--name VALUE` options and the one positional argument.
var options: [String: String] = [:]
var positional: [String] = []
var rest = Array(CommandLine.arguments.dropFirst())[...]
while let word = rest.popFirst() {
    if word.hasPrefix("--") {
        guard let value = rest.popFirst() else { fail("\(word) needs a value") }
        options[word] = value
    } else {
        positional.append(word)
    }
}
func number<T: LosslessStringConvertible>(_ name: String, _ text: String) -> T {
    guard let value = T(text) else { fail("\(name) takes a number, got \(text)") }
    return value
}

var config = FakeSearchAPI.Configuration()
if let text = options["--tweets"] { config.totalTweets = number("--tweets", text) }
if let text = options["--rate-limit"] { config.rateLimit = number("--rate-limit", text) }
if let text = options["--window"] { config.rateWindow = number("--window", text) }
let portFile = options["--port-file"]
let seconds: Int = positional.first.map { number("SECONDS", $0) } ?? 300

let fake: FakeSearchAPI
do { fake = try FakeSearchAPI(config) } catch { fail("cannot start: \(error)") }
print("""
    fake X API serving at \(fake.baseURL) for \(seconds) s (\(config.totalTweets) tweets)
      export TWEETCACHE_BEARER_TOKEN=\(config.token)
      tweetcache search '#ucd' --api-base \(fake.baseURL) --mirror \(fake.mirrorSpec) --count 250
    """)
fflush(nil)
if let portFile {
    do { try Data(String(fake.server.port).utf8).write(to: URL(fileURLWithPath: portFile)) } catch { fail("\(error)") }
}
Thread.sleep(forTimeInterval: TimeInterval(seconds))
print("fake X API: served \(fake.apiRequests.count) API and \(fake.mediaRequests) media requests")

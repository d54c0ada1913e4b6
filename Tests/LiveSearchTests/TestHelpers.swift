import Foundation
import LiveSearch
import TestSupport

func temporaryDirectory() throws -> URL {
    try ScratchDirectory.make("tc-live")
}

/// Options for tests: short backoff, the fake's base URL, pages under a fresh cache.
func testOptions(_ api: SearchAPI, _ fake: FakeSearchAPI, count: Int, cache: URL) -> SearchOptions {
    var options = SearchOptions(cacheRoot: cache)
    options.api = api
    options.baseURL = fake.baseURL
    options.count = count
    options.backoffBase = .milliseconds(20)
    options.backoffCap = .milliseconds(100)
    options.fetch.connectTimeout = .seconds(2)
    options.fetch.totalTimeout = .seconds(10)
    // The client waits on the fake's clock: a virtual one makes waits instant.
    options.clock = fake.configuration.clock
    return options
}

/// A fake API on a ``VirtualClock``, with the clock to read.
func virtualFake(
    _ adjust: (inout FakeSearchAPI.Configuration) -> Void = { _ in }, faults: [Int: FakeSearchAPI.Fault] = [:]
) throws -> (FakeSearchAPI, VirtualClock) {
    let clock = VirtualClock()
    var config = FakeSearchAPI.Configuration()
    config.clock = clock
    adjust(&config)
    return (try FakeSearchAPI(config, faults: faults), clock)
}

/// Collects a search's events for assertions.
final class EventLog: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var stored: [SearchEvent] = []

    func append(_ e: SearchEvent) { lock.withLock { stored.append(e) } }
    var events: [SearchEvent] { lock.withLock { stored } }

    var waitCauses: [SearchEvent.WaitCause] {
        events.compactMap { if case let .waitStarted(_, cause) = $0 { cause } else { nil } }
    }

    var retries: [String] {
        events.compactMap { if case let .retrying(_, reason, _, _, _) = $0 { reason } else { nil } }
    }
}

/// Runs a search against the fake with its token.
func search(
    _ text: String, api: SearchAPI = .v2, fake: FakeSearchAPI, count: Int, cache: URL, retweets: Bool = false,
    configure: (inout SearchOptions) -> Void = { _ in }, log: EventLog = EventLog()
) async throws -> SearchOutcome {
    var options = testOptions(api, fake, count: count, cache: cache)
    configure(&options)
    let token = try BearerToken(fake.configuration.token, source: .environment(BearerToken.environmentVariable))
    let client = try SearchClient(query: try SearchQuery(text, includeRetweets: retweets), token: token, options: options)
    defer { client.shutdown() }
    return await client.run { log.append($0) }
}

extension Collection where Element == LoopbackHTTPServer.Request {
    var parameters: [[String: String]] { map(FakeSearchAPI.parameters) }
}

import Foundation
import Testing
import TestSupport
@testable import LiveSearch

/// Rate limits, refusals, flaky servers and bad pages.
@Suite struct SearchClientFaultTests {
    @Test func waitsOutA429WhoseResetIsSoonAndThenSucceeds() async throws {
        let (fake, clock) = try virtualFake(faults: [2: .tooManyRequests(resetIn: 1)])
        let log = EventLog()
        let start = clock.now()
        let outcome = try await search("#ucd", fake: fake, count: 300, cache: try temporaryDirectory(), log: log)
        let elapsed = clock.now().timeIntervalSince(start)

        #expect(outcome.stop == .countReached)
        #expect(outcome.tweets == 300)
        #expect(fake.apiRequests.count == 4)
        #expect(fake.tooManyRequestsServed == 1)
        #expect(log.waitCauses == [.tooManyRequests])
        #expect(elapsed >= 1, "waited past the reset (on the virtual clock: no test time)")
        #expect(elapsed <= 3)
        // The retried request is the same page: same next_token.
        let tokens = fake.apiRequests.parameters.map { $0["next_token"] }
        #expect(tokens[1] == tokens[2])
        #expect(tokens[1] != nil)
    }

    @Test func stopsWithWhatItHasWhenTheResetIsFurtherThanMaxWait() async throws {
        let (fake, clock) = try virtualFake(faults: [2: .tooManyRequests(resetIn: 120)])
        let outcome = try await search("#ucd", fake: fake, count: 300, cache: try temporaryDirectory()) {
            $0.maxWait = .seconds(5)
        }
        guard case let .rateLimited(reset) = outcome.stop, let reset else {
            Issue.record("expected a rate-limit stop with a reset, got \(outcome.stop)")
            return
        }
        #expect(reset.timeIntervalSince(clock.now()) > 100)
        #expect(clock.totalSlept == .zero, "nothing waited for a reset past maxWait")
        #expect(outcome.pages.count == 1)
        #expect(outcome.tweets == 100)
        #expect(fake.apiRequests.count == 2)
        // Says when, in local time.
        #expect(outcome.stop.description.contains(LocalTime.describe(reset)))
        #expect(outcome.stop.description.contains("run the search again after"))
    }

    @Test func waitsForTheWindowToResetInsteadOfHittingA429() async throws {
        // One request per window of 15 minutes: every response says none are left until the reset.
        let (fake, clock) = try virtualFake { $0.rateLimit = 1; $0.rateWindow = 900 }
        let log = EventLog()
        let started = clock.now()
        let outcome = try await search("#ucd", fake: fake, count: 150, cache: try temporaryDirectory(), log: log)
        #expect(outcome.stop == .countReached)
        #expect(fake.apiRequests.count == 2)
        #expect(fake.tooManyRequestsServed == 0)
        // It waited for the reset (on the virtual clock, which the wait moved on) rather than asking early.
        #expect(log.waitCauses == [.windowUsedUp])
        #expect(clock.now().timeIntervalSince(started) >= 900)
    }

    @Test func a401SaysWhatToFixAndNeverShowsTheToken() async throws {
        let fake = try FakeSearchAPI()
        let cache = try temporaryDirectory()
        let wrong = "WRONG-\(UUID().uuidString)"
        let client = try SearchClient(
            query: try SearchQuery("#ucd"),
            token: try BearerToken(wrong, source: .environment(BearerToken.environmentVariable)),
            options: testOptions(.v2, fake, count: 100, cache: cache))
        let outcome = await client.run()
        guard case let .failed(error) = outcome.stop, case .unauthorized = error else {
            Issue.record("expected unauthorized, got \(outcome.stop)")
            return
        }
        let message = outcome.stop.description
        #expect(message.contains("401"))
        #expect(message.contains("TWEETCACHE_BEARER_TOKEN"))
        #expect(!message.contains(wrong))
        #expect(!message.contains("\n"))
        #expect(outcome.pages.isEmpty)
        #expect(fake.apiRequests.count == 1)
        #expect(fake.apiRequests.first?.headers["authorization"] == "Bearer \(wrong)")
    }

    @Test func a403SaysTheAppNeedsAccess() async throws {
        let fake = try FakeSearchAPI(faults: [1: .forbidden])
        let outcome = try await search("#ucd", fake: fake, count: 100, cache: try temporaryDirectory())
        guard case let .failed(error) = outcome.stop, case .forbidden = error else {
            Issue.record("expected forbidden, got \(outcome.stop)")
            return
        }
        #expect(error.description.contains("403"))
        #expect(error.description.contains("client-not-enrolled"))
        #expect(error.description.contains("access level"))
    }

    @Test func retriesA503AndThenSucceeds() async throws {
        let fake = try FakeSearchAPI(faults: [1: .serviceUnavailable, 3: .serviceUnavailable])
        let log = EventLog()
        let outcome = try await search("#ucd", fake: fake, count: 200, cache: try temporaryDirectory(), log: log)
        #expect(outcome.stop == .countReached)
        #expect(outcome.tweets == 200)
        #expect(fake.apiRequests.count == 4)
        #expect(outcome.requests == 4)
        #expect(log.retries == ["HTTP 503", "HTTP 503"])
        let targets = fake.apiRequests.map(\.target)
        #expect(targets[0] == targets[1])
        #expect(targets[2] == targets[3])
    }

    @Test func givesUpOnAServerThatKeepsFailing() async throws {
        let fake = try FakeSearchAPI(faults: [1: .serviceUnavailable, 2: .serviceUnavailable, 3: .serviceUnavailable])
        let outcome = try await search("#ucd", fake: fake, count: 100, cache: try temporaryDirectory()) { $0.attempts = 3 }
        #expect(outcome.stop == .failed(.serverError(service: "the X API", status: 503, attempts: 3, detail: "Service Unavailable")))
        #expect(fake.apiRequests.count == 3)
        #expect(outcome.pages.isEmpty)
    }

    @Test func aMalformedPageIsSavedReportedAndEndsPagingWithThePagesSoFar() async throws {
        let fake = try FakeSearchAPI(faults: [2: .truncatedPage])
        let outcome = try await search("#ucd", fake: fake, count: 300, cache: try temporaryDirectory())
        guard case let .malformedPage(number, reason) = outcome.stop else {
            Issue.record("expected a malformed-page stop, got \(outcome.stop)")
            return
        }
        #expect(number == 2)
        #expect(reason.contains("not valid JSON"))
        #expect(outcome.pages.count == 2)
        #expect(outcome.tweets == 100)
        let bad = outcome.pages[1]
        #expect(bad.problem != nil)
        #expect(try !Data(contentsOf: bad.file).isEmpty)
    }

    @Test func anUnreachableServerFailsAfterItsAttempts() async throws {
        let fake = try FakeSearchAPI()
        let closed = try ClosedPort()
        let outcome = try await search("#ucd", fake: fake, count: 100, cache: try temporaryDirectory()) {
            $0.attempts = 2
            $0.baseURL = closed.baseURL
        }
        #expect(fake.apiRequests.isEmpty)
        guard case let .failed(.network(_, _, attempts)) = outcome.stop else {
            Issue.record("expected a network failure, got \(outcome.stop)")
            return
        }
        #expect(attempts == 2)
    }

    @Test func refusesANonsenseCountOrBaseURLBeforeAnyRequest() throws {
        let token = try BearerToken("t", source: .environment("T"))
        var options = SearchOptions(cacheRoot: try temporaryDirectory())
        options.count = 0
        #expect(throws: LiveSearchError.invalidCount(0)) {
            try SearchClient(query: try SearchQuery("#ucd"), token: token, options: options)
        }
        options.count = 10
        options.baseURL = "api.x.com"
        #expect(throws: LiveSearchError.invalidBaseURL("api.x.com")) {
            try SearchClient(query: try SearchQuery("#ucd"), token: token, options: options)
        }
    }
}

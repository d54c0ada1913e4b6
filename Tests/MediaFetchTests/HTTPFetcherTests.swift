import Foundation
import Synchronization
import Testing
import TestSupport
@testable import MediaFetch

/// A body that sniffs as JPEG, of any length.
func fakeJPEG(_ n: Int, seed: UInt8 = 7) -> [UInt8] {
    var b: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1]
    var x = seed
    while b.count < n { x = x &* 31 &+ 17; b.append(x) }
    return Array(b.prefix(max(n, 1)))
}

/// Fast limits so fault tests finish in well under a second each.
func testConfiguration() -> FetchConfiguration {
    var c = FetchConfiguration()
    c.backoffBase = .milliseconds(20)
    c.backoffCap = .milliseconds(100)
    c.connectTimeout = .seconds(2)
    c.lowSpeedLimit = 1000
    c.lowSpeedTime = .seconds(1)
    c.totalTimeout = .seconds(10)
    return c
}

func fetchMemory(_ fetcher: HTTPFetcher, _ url: String, fallbacks: [String] = [], expected: ExpectedContent = .image)
    async -> FetchResult<[UInt8]>
{
    await fetcher.fetch(FetchRequest(url: url, fallbackURLs: fallbacks, expected: expected)) { MemorySink() }
}

@Suite struct HTTPFetcherTests {
    @Test func fetchesABodyIntoItsSink() async throws {
        let body = fakeJPEG(300_000)
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, headers: [("Content-Type", "image/jpeg")], body: body) }
        let fetcher = try HTTPFetcher(configuration: testConfiguration())
        let result = try await fetchMemory(fetcher, server.baseURL + "/a.jpg").get()
        #expect(result.output == body)
        #expect(result.kind == .jpeg)
        #expect(result.httpStatus == 200)
        #expect(result.bytes == body.count)
        #expect(result.attempts == 1)
        #expect(result.contentType == "image/jpeg")
    }

    @Test func reusesConnectionsAcrossManyTransfers() async throws {
        let server = try LoopbackHTTPServer { req in .respond(status: 200, body: fakeJPEG(20_000, seed: UInt8(req.target.count % 200))) }
        var config = testConfiguration()
        config.maxConcurrentTransfers = 4
        config.maxTransfersPerHost = 4
        let fetcher = try HTTPFetcher(configuration: config)
        let results = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<60 {
                group.addTask { (try? await fetchMemory(fetcher, server.baseURL + "/img\(i).jpg").get()) != nil }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 })
        #expect(results.count == 60)
        #expect(server.requests.count == 60)
        // Keep-alive: far fewer connections than requests (at most the cap, plus slack).
        #expect(server.connectionsAccepted <= 8)
    }

    @Test func respectsThePerHostCap() async throws {
        let inFlight = Atomic<Int>(0)
        let peak = Atomic<Int>(0)
        // Each request is held until three are in the server at once (or, should the
        // fetcher never allow three, 2 s pass): if the cap let more through, the peak
        // would show it, and no timing decides when requests overlap.
        let meeting = Meeting(size: 3)
        let server = try LoopbackHTTPServer { _ in
            let now = inFlight.add(1, ordering: .relaxed).newValue
            peak.max(now, ordering: .relaxed)
            meeting.arriveAndWait(timeout: 2)
            inFlight.subtract(1, ordering: .relaxed)
            return .respond(status: 200, body: fakeJPEG(1000))
        }
        var config = testConfiguration()
        config.maxConcurrentTransfers = 16
        config.maxTransfersPerHost = 3
        let fetcher = try HTTPFetcher(configuration: config)
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<30 { group.addTask { _ = await fetchMemory(fetcher, server.baseURL + "/p\(i).jpg") } }
        }
        #expect(peak.load(ordering: .relaxed) == 3)
    }

    @Test func abandonsASlowBody() async throws {
        let server = try LoopbackHTTPServer { _ in
            .trickle(status: 200, body: fakeJPEG(50_000), chunk: 100, delay: .milliseconds(300))
        }
        var config = testConfiguration()
        config.maxAttempts = 1
        let fetcher = try HTTPFetcher(configuration: config)
        let result = await fetchMemory(fetcher, server.baseURL + "/slow.jpg")
        guard case let .failure(f) = result, case let .timedOut(why) = f else {
            Issue.record("expected a timeout, got \(result)")
            return
        }
        // The whole trickle would take 150 s and the total deadline is 10 s; the stall
        // limit (under 1,000 bytes a second for 1 s) is what ends it. Asked of libcurl's
        // reason rather than of the wall clock: a test waiting for the cooperative pool
        // on a busy machine cannot tell how long the transfer itself took.
        #expect(why.contains("too slow"), "ended by something other than the stall limit: \(why)")
        server.stop()
    }

    @Test func retriesAResetMidBodyAndThenSucceeds() async throws {
        let body = fakeJPEG(100_000)
        let hits = Atomic<Int>(0)
        let server = try LoopbackHTTPServer { _ in
            if hits.add(1, ordering: .relaxed).newValue == 1 {
                return .resetAfter(status: 200, body: Array(body.prefix(30_000)), declaredLength: body.count)
            }
            return .respond(status: 200, body: body)
        }
        let fetcher = try HTTPFetcher(configuration: testConfiguration())
        let ok = try await fetchMemory(fetcher, server.baseURL + "/reset.jpg").get()
        #expect(ok.output == body)
        #expect(ok.attempts == 2)
    }

    @Test func reportsAPersistentResetAsInterrupted() async throws {
        let body = fakeJPEG(100_000)
        let server = try LoopbackHTTPServer { _ in
            .resetAfter(status: 200, body: Array(body.prefix(30_000)), declaredLength: body.count)
        }
        var config = testConfiguration()
        config.maxAttempts = 3
        let fetcher = try HTTPFetcher(configuration: config)
        let result = await fetchMemory(fetcher, server.baseURL + "/reset.jpg")
        guard case let .failure(f) = result, case .connectionInterrupted = f else {
            Issue.record("expected connectionInterrupted, got \(result)")
            return
        }
        #expect(server.requestCount(path: "/reset.jpg") == 3)
    }

    @Test func waitsForRetryAfterOn429() async throws {
        let hits = Atomic<Int>(0)
        let server = try LoopbackHTTPServer { _ in
            if hits.add(1, ordering: .relaxed).newValue == 1 {
                return .respond(status: 429, headers: [("Retry-After", "1")], body: Array("slow down".utf8))
            }
            return .respond(status: 200, body: fakeJPEG(5000))
        }
        var config = testConfiguration()
        let clock = VirtualClock()
        config.clock = clock
        let fetcher = try HTTPFetcher(configuration: config)
        let ok = try await fetchMemory(fetcher, server.baseURL + "/limited.jpg").get()
        #expect(ok.attempts == 2)
        // Backoff alone would be at most 100 ms: waiting 1 s proves Retry-After was
        // honoured (on the virtual clock, so the test does not wait for it).
        #expect(clock.totalSlept >= .seconds(1))
        #expect(clock.totalSlept < .seconds(2))
    }

    @Test func givesUpWhenRetryAfterIsTooLong() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 429, headers: [("Retry-After", "3600")]) }
        let fetcher = try HTTPFetcher(configuration: testConfiguration())
        let result = await fetchMemory(fetcher, server.baseURL + "/x.jpg")
        #expect(result.failure == .rateLimited(retryAfterSeconds: 3600))
        #expect(server.requests.count == 1)
    }

    @Test func retries500WithBackoffThenFails() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 500, body: Array("oops".utf8)) }
        var config = testConfiguration()
        config.maxAttempts = 4
        let fetcher = try HTTPFetcher(configuration: config)
        let result = await fetchMemory(fetcher, server.baseURL + "/err.jpg")
        #expect(result.failure == .httpStatus(500))
        #expect(server.requests.count == 4)
    }

    @Test func doesNotRetry404ButTriesTheFallback() async throws {
        let server = try LoopbackHTTPServer { req in
            req.path == "/u_400x400.jpg" ? .respond(status: 404) : .respond(status: 200, body: fakeJPEG(2000))
        }
        let fetcher = try HTTPFetcher(configuration: testConfiguration())
        let ok = try await fetchMemory(
            fetcher, server.baseURL + "/u_400x400.jpg", fallbacks: [server.baseURL + "/u_normal.jpg"]
        ).get()
        #expect(ok.url == server.baseURL + "/u_normal.jpg")
        #expect(server.requestCount(path: "/u_400x400.jpg") == 1)
        #expect(server.requestCount(path: "/u_normal.jpg") == 1)

        let gone = await fetchMemory(fetcher, server.baseURL + "/u_400x400.jpg")
        #expect(gone.failure == .httpStatus(404))
        #expect(server.requestCount(path: "/u_400x400.jpg") == 2)
    }

    @Test func stopsARedirectLoop() async throws {
        let server = try LoopbackHTTPServer { req in
            let n = Int(req.path.dropFirst(5)) ?? 0
            return .respond(status: 302, headers: [("Location", "/loop\(n + 1)")])
        }
        let fetcher = try HTTPFetcher(configuration: testConfiguration())
        let result = await fetchMemory(fetcher, server.baseURL + "/loop0")
        #expect(result.failure == .tooManyRedirects(limit: 5))
        #expect(server.requests.count == 6)
    }

    @Test func refusesARedirectToAnotherScheme() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 302, headers: [("Location", "file:///etc/passwd")]) }
        let fetcher = try HTTPFetcher(configuration: testConfiguration())
        let result = await fetchMemory(fetcher, server.baseURL + "/r.jpg")
        #expect(result.failure == .redirectToUnsupportedScheme)
        let ftp = try LoopbackHTTPServer { _ in .respond(status: 301, headers: [("Location", "ftp://127.0.0.1/x.jpg")]) }
        #expect(await fetchMemory(fetcher, ftp.baseURL + "/r.jpg").failure == .redirectToUnsupportedScheme)
    }

    @Test func refusesNonHTTPURLsWithoutTouchingTheNetwork() async throws {
        let fetcher = try HTTPFetcher(configuration: testConfiguration())
        #expect(await fetchMemory(fetcher, "file:///etc/passwd").failure == .unsupportedScheme("file"))
        #expect(await fetchMemory(fetcher, "gopher://x/").failure == .unsupportedScheme("gopher"))
        #expect(await fetchMemory(fetcher, "not a url").failure?.code == "invalid_url")
    }

    @Test func capsTheBodySizeWithAndWithoutContentLength() async throws {
        var config = testConfiguration()
        config.maxBytes = 64 * 1024
        let fetcher = try HTTPFetcher(configuration: config)
        let honest = try LoopbackHTTPServer { _ in .respond(status: 200, body: fakeJPEG(200_000)) }
        #expect(await fetchMemory(fetcher, honest.baseURL + "/big.jpg").failure == .tooLarge(limit: 64 * 1024))
        // A server that lies about the length (announces 1 KB, streams 200 KB then hangs):
        // the cap must hold while streaming, not only from the header.
        let liar = try LoopbackHTTPServer { _ in
            .trickle(status: 200, headers: [("Content-Length", "999999999")], body: fakeJPEG(200_000), chunk: 50_000, delay: .milliseconds(1))
        }
        #expect(await fetchMemory(fetcher, liar.baseURL + "/big.jpg").failure == .tooLarge(limit: 64 * 1024))
        let small = try LoopbackHTTPServer { _ in .respond(status: 200, body: fakeJPEG(60_000)) }
        #expect((try? await fetchMemory(fetcher, small.baseURL + "/ok.jpg").get())?.bytes == 60_000)
    }

    @Test func headerNamesAreCaseBlindAndValuesTrimmedAndLatin1() async throws {
        let page = Array("<html><body>x</body></html>".utf8)
        // A tab and spaces around the value, a name in odd case, and an obs-text byte
        // (0xE9, é in ISO-8859-1) as RFC 9110 allows.
        let value = String(decoding: [0x09] + Array("text/html; title=caf".utf8) + [0xC3, 0xA9] + Array("  ".utf8), as: UTF8.self)
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, headers: [("cOnTeNt-TyPe", value)], body: page) }
        let fetcher = try HTTPFetcher(configuration: testConfiguration())
        let result = await fetchMemory(fetcher, server.baseURL + "/photo.jpg")
        // The UTF-8 bytes of é read as two ISO-8859-1 characters: bytes, not guesses.
        #expect(result.failure == .unexpectedContent(.html, contentType: "text/html; title=caf\u{C3}\u{A9}"))

        #expect(CurlTransfer.latin1([0x41, 0xE9]) == "A\u{E9}")
        let line: [UInt8] = Array(" \t Retry-After:  7 \r\n".utf8)
        line.withUnsafeBytes { raw in
            let trimmed = CurlTransfer.trimmed(raw[...])
            #expect(CurlTransfer.latin1(trimmed) == "Retry-After:  7")
            let colon = trimmed.firstIndex(of: UInt8(ascii: ":"))!
            #expect(CurlTransfer.equalsIgnoringCase(trimmed[..<colon], "retry-after"))
            #expect(!CurlTransfer.equalsIgnoringCase(trimmed[..<colon], "retry-afte"))
            #expect(CurlTransfer.latin1(CurlTransfer.trimmed(trimmed[(colon + 1)...])) == "7")
        }
        let blank: [UInt8] = Array("\r\n".utf8)
        blank.withUnsafeBytes { #expect(CurlTransfer.trimmed($0[...]).isEmpty) }
    }

    @Test func refusesHTMLServedAsAnImage() async throws {
        let page = Array("<!DOCTYPE html><html><body>Login required</body></html>".utf8)
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, headers: [("Content-Type", "image/jpeg")], body: page) }
        let fetcher = try HTTPFetcher(configuration: testConfiguration())
        let result = await fetchMemory(fetcher, server.baseURL + "/photo.jpg")
        #expect(result.failure == .unexpectedContent(.html, contentType: "image/jpeg"))
        #expect(result.failure?.description.contains("HTML page") == true)
        // The same bytes are fine when anything is accepted.
        #expect((try? await fetchMemory(fetcher, server.baseURL + "/p", expected: .any).get()) != nil)
    }

    @Test func refusesAnEmptyBody() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200) }
        let fetcher = try HTTPFetcher(configuration: testConfiguration())
        #expect(await fetchMemory(fetcher, server.baseURL + "/e.jpg").failure == .emptyBody)
    }

    @Test func refusedConnectionIsAConnectFailure() async throws {
        // A port held by a socket that never listens: nothing can accept there.
        let closed = try ClosedPort()
        var config = testConfiguration()
        config.maxAttempts = 2
        let fetcher = try HTTPFetcher(configuration: config)
        let result = await fetchMemory(fetcher, "http://127.0.0.1:\(closed.port)/x.jpg")
        #expect(result.failure?.code == "connection_failed")
    }

    @Test func fetchesThroughAMirrorButReportsTheOriginalURL() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: fakeJPEG(1000)) }
        var config = testConfiguration()
        config.mirrors = try MirrorMap(specs: ["pbs.twimg.com=\(server.baseURL)/pbs/"])
        let fetcher = try HTTPFetcher(configuration: config)
        let original = "https://pbs.twimg.com/media/Abc?format=jpg&name=orig"
        let ok = try await fetchMemory(fetcher, original).get()
        #expect(ok.url == original)
        #expect(server.requests.first?.target == "/pbs/media/Abc?format=jpg&name=orig")
    }

    @Test func cancellationEndsATransfer() async throws {
        // The body would take 10 s; the task is cancelled as soon as the server has
        // the request, so a result before the body's end can only come from cancelling
        // (at 2 s, a loaded machine let the body finish first now and then).
        let (requested, arrival) = AsyncStream<Void>.makeStream()
        let server = try LoopbackHTTPServer { _ in
            arrival.yield()
            return .trickle(status: 200, body: fakeJPEG(100_000), chunk: 2_000, delay: .milliseconds(200))
        }
        var config = testConfiguration()
        config.lowSpeedLimit = 1
        config.lowSpeedTime = .seconds(30)
        let fetcher = try HTTPFetcher(configuration: config)
        let task = Task { await fetchMemory(fetcher, server.baseURL + "/c.jpg") }
        var arrivals = requested.makeAsyncIterator()
        _ = await arrivals.next()
        task.cancel()
        let result = await task.value
        #expect(result.failure == .cancelled)
        server.stop()
    }
}

extension Result {
    var failure: Failure? {
        if case let .failure(f) = self { return f }
        return nil
    }
}

/// Holds each arriving thread until `size` have arrived, then lets that group go; a
/// thread waits at most `timeout` seconds (and then leaves the group), so a broken
/// expectation fails the test instead of hanging it.
final class Meeting: @unchecked Sendable {
    private let size: Int
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var waiting = 0
    private var generation = 0

    init(size: Int) { self.size = size }

    func arriveAndWait(timeout: TimeInterval) {
        condition.lock()
        defer { condition.unlock() }
        let mine = generation
        waiting += 1
        if waiting == size {
            waiting = 0
            generation += 1
            condition.broadcast()
            return
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while generation == mine, condition.wait(until: deadline) {}
        if generation == mine { waiting -= 1 }
    }
}

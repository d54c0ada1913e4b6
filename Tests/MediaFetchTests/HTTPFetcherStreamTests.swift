import Foundation
import Testing
import TestSupport
@testable import MediaFetch

/// `stream` hands a response over as it arrives; its reader ends it by leaving.
@Suite struct HTTPFetcherStreamTests {
    /// A reader leaving a stream that already ended still asks the loop to cancel it. That
    /// stale cancel once named the transfer by its address, which the next transfer can
    /// reuse once the first is freed: streams read one after another then ended
    /// "cancelled" at random (7 of 63 originals in one `verify --store`).
    @Test func aFinishedStreamsCancelNeverEndsTheNextOne() async throws {
        let body = Array("an object's bytes".utf8)
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: body) }
        var c = FetchConfiguration()
        c.connectTimeout = .seconds(5)
        let fetcher = try HTTPFetcher(configuration: c)
        // Eight readers at once, as `verify --store` reads a bucket's originals.
        let failures = await withTaskGroup(of: [String].self) { group in
            for lane in 0..<8 {
                group.addTask {
                    var failures: [String] = []
                    for n in 0..<100 {
                        var received: [UInt8] = []
                        var ended: FetchFailure?? = nil
                        for await part in fetcher.stream(APIRequest(url: server.baseURL + "/o/\(lane)/\(n)"), stallAfter: .seconds(5)) {
                            switch part {
                            case .head: continue
                            case let .bytes(bytes): received += bytes
                            case let .end(_, failure): ended = .some(failure)
                            }
                        }
                        if ended != .some(nil) || received != body { failures.append("\(lane)/\(n): \(String(describing: ended))") }
                    }
                    return failures
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(failures.isEmpty, "\(failures.count) of 800 streams did not end whole: \(failures.prefix(5))")
    }
}

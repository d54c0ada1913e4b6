import Foundation
import Testing
import TestSupport
@testable import TileServer

/// A port another server holds: `start` says so and returns, rather than waiting for
/// a socket that will never listen (`tweetcache serve` hung silently).
@Suite struct PortTakenTests {
    @Test(.timeLimit(.minutes(1))) func startingOnATakenPortFailsWithTheReason() async throws {
        let cache = try ScratchDirectory.make("tc-port-taken")
        defer { try? FileManager.default.removeItem(at: cache) }
        var configuration = TileServerConfiguration(cacheRoot: cache)
        configuration.port = 0
        try await withServer(try await TileServer.start(configuration, executor: ServerThreads.shared)) { (first: TileServer) async throws in
            var second = configuration
            second.port = first.port
            do {
                let server = try await TileServer.start(second, executor: ServerThreads.shared)
                await server.stop()
                Issue.record("a second server started on port \(first.port)")
            } catch let error as TileServerError {
                guard case let .bindFailed(why) = error else {
                    Issue.record("not a bind failure: \(error)")
                    return
                }
                #expect(why.contains(":\(first.port)"))
                #expect(why.lowercased().contains("in use"), "\(why)")
            }
        }
    }
}

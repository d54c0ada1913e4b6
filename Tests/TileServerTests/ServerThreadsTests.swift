import Dispatch
import Foundation
import Testing
import TestSupport
@testable import TileServer

/// A server started on threads of its own answers while every thread of the
/// cooperative pool is held by synchronous work, as the suite's busiest minutes do.
@Suite struct ServerThreadsTests {
    @Test func aServerOnItsOwnThreadsAnswersWhileThePoolIsHeld() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let port = server.port
            let width = ProcessInfo.processInfo.activeProcessorCount
            let holding = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            // Every pool thread waits on a semaphore until the request below has its answer.
            for _ in 0..<width {
                Task.detached {
                    holding.signal()
                    release.wait()
                }
            }
            let status = try await onOwnThread { () -> Int in
                defer { for _ in 0..<width { release.signal() } }
                for _ in 0..<width { holding.wait() }
                // Held: nothing on the pool runs until `release`. A server on the pool
                // would not answer, and the request would fail at its time limit.
                return try RawHTTPClient.send("GET", "/healthz", port: port, timeout: 20).status
            }
            #expect(status == 200)
        }
    }
}

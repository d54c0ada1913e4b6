import BlobStore
import Foundation
import Imaging
import Pipeline
import Testing
import TestSupport
@testable import TileServer

/// What one visitor can make the server do: thumbnails of any size fill memory,
/// not the disk; new renders are limited per client address; a render nobody waits
/// for any more is not done.
@Suite struct VisitorLimitsTests {
    /// Every file of the cache, for what a run of requests left on disk.
    func files(_ cache: URL) -> Set<String> {
        let found = FileManager.default.enumerator(at: cache, includingPropertiesForKeys: nil)?.compactMap { ($0 as? URL)?.path }
        return Set(found ?? []).filter { !$0.contains("/index") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
    }

    @Test func thumbnailSizesOnlyTheCacheMakesAreKeptOnDisk() async throws {
        let fixture = try await ServerFixture.get()
        let cache = try fixture.copyOfCache()
        defer { try? FileManager.default.removeItem(at: cache) }
        let before = files(cache)
        var configuration = TileServerConfiguration(cacheRoot: cache)
        configuration.port = 0
        configuration.buildsPacks = false
        configuration.storedThumbnailSizes.insert(120)  // serve --thumb-sizes 120
        try await withServer(try await TileServer.start(configuration, executor: ServerThreads.shared)) { (server: TileServer) async throws in
            for size in 100..<140 {
                let answer = try await fetch(server, "/thumb/\(fixture.lazy.hex)/\(size)")
                #expect(answer.status == 200)
                #expect(try ImageDecoder.info(of: answer.body).width == size)
            }
        }
        let added = files(cache).subtracting(before)
        #expect(added == [cache.appendingPathComponent(CacheLayout.thumbnail(fixture.lazy, size: 120, png: false)).path])
    }

    @Test func newRendersAreLimitedPerClientAndCachedAnswersAreNot() async throws {
        let fixture = try await ServerFixture.get()
        let clock = ManualClock()
        let start = { (proxy: Bool) in
            try await fixture.start {
                $0.clock = clock
                $0.renderRate = 0.5
                $0.renderBurst = 3
                $0.trustsProxy = proxy
            }
        }
        try await withServer(try await start(false)) { (server: TileServer) async throws in
            let hex = fixture.lazy.hex
            for size in 201...203 { #expect(try await fetch(server, "/thumb/\(hex)/\(size)").status == 200) }
            let refused = try await fetch(server, "/thumb/\(hex)/204")
            #expect(refused.status == 429 && refused.header("retry-after") == "2")
            #expect(refused.header("access-control-allow-origin") == nil)
            // What is made already costs nothing.
            #expect(try await fetch(server, "/thumb/\(hex)/201").status == 200)
            #expect(try await fetch(server, "/dzi/\(fixture.eager.hex).dzi").status == 200)
            // Without --trust-proxy a client cannot pose as another by a header.
            #expect(try await fetch(server, "/thumb/\(hex)/205", headers: ["X-Forwarded-For": "198.51.100.7"]).status == 429)
            // Two seconds later there is a token again, though the system's date was set
            // back an hour meanwhile: the tokens come back with the uptime.
            clock.stepDate(by: .seconds(-3600))
            clock.advance(by: .seconds(2))
            #expect(try await fetch(server, "/thumb/\(hex)/204").status == 200)
            #expect(try await metric(server, "tweetcache_renders_refused_total") == 2)
        }
        try await withServer(try await start(true)) { (server: TileServer) async throws in
            let hex = fixture.lazy.hex
            // Behind a trusted proxy each forwarded address has its own share: the last one
            // (the proxy's own addition), not what the client wrote before it.
            for size in 301...303 {
                #expect(try await fetch(server, "/thumb/\(hex)/\(size)", headers: ["X-Forwarded-For": "1.2.3.4, 198.51.100.7"]).status == 200)
            }
            #expect(try await fetch(server, "/thumb/\(hex)/304", headers: ["X-Forwarded-For": "9.9.9.9, 198.51.100.7"]).status == 429)
            #expect(try await fetch(server, "/thumb/\(hex)/304", headers: ["X-Forwarded-For": "198.51.100.8"]).status == 200)
            // One IPv6 network (a /64) is one client.
            #expect(try await fetch(server, "/thumb/\(hex)/305", headers: ["X-Forwarded-For": "2001:db8:1:2::1"]).status == 200)
            #expect(try await fetch(server, "/thumb/\(hex)/306", headers: ["X-Forwarded-For": "2001:db8:1:2::ffff"]).status == 200)
            #expect(try await fetch(server, "/thumb/\(hex)/307", headers: ["X-Forwarded-For": "2001:db8:1:2:aaaa::9"]).status == 200)
            #expect(try await fetch(server, "/thumb/\(hex)/308", headers: ["X-Forwarded-For": "2001:db8:1:2:bbbb::9"]).status == 429)
        }
    }

    @Test func aRenderWhoseOnlyClientHungUpIsDropped() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start {
            $0.renderConcurrency = 1
            $0.clock = ManualClock()
        }) { (server: TileServer) async throws in
            let generated = try await metric(server, "tweetcache_tiles_generated_total")
            // The only render slot is taken until the test lets go.
            let gate = DispatchSemaphore(value: 0)
            let busy = Task { try await server.pool.run { gate.wait() } }
            var polls = 0
            while server.pool.queuedJobs < 1, polls < 1_000_000 { polls += 1; await Task.yield() }
            // A thumbnail nobody made yet is asked for, and its client hangs up while it waits.
            let port = server.port
            try await onOwnThread {
                let connection = try RawHTTPConnection(port: port)
                try connection.send(connection.request("GET", "/thumb/\(fixture.lazy.hex)/333"))
            }
            polls = 0
            while polls < 100_000 {
                let left = try await metric(server, "tweetcache_clients_left_total")
                if server.pool.queuedJobs >= 2, left >= 1 { break }
                polls += 1
                await Task.yield()
            }
            #expect(server.pool.queuedJobs == 2)
            gate.signal()
            try await busy.value
            polls = 0
            while server.pool.queuedJobs > 0, polls < 1_000_000 { polls += 1; await Task.yield() }
            #expect(server.pool.droppedJobs == 1)
            #expect(try await metric(server, "tweetcache_tiles_generated_total") == generated)
            // The next client who asks gets it made.
            #expect(try await fetch(server, "/thumb/\(fixture.lazy.hex)/333").status == 200)
            #expect(try await metric(server, "tweetcache_tiles_generated_total") == generated + 1)
        }
    }
}

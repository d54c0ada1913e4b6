import BlobStore
import Foundation
import MediaFetch
import MediaTypes
import Synchronization
import Testing
@testable import Pipeline

/// A loader with no sockets: bodies by URL, everything else 404, every request kept.
/// The pipeline's own logic (planning, dedup, what goes in the index and manifest)
/// is tested through it; the fetcher's sockets have tests of their own.
final class StubLoader: MediaLoading {
    private let bodies: [String: [UInt8]]
    private let asked = Mutex<[String]>([])

    init(_ bodies: [String: [UInt8]]) { self.bodies = bodies }

    var requests: [String] { asked.withLock { $0 } }

    func fetch<S: FetchSink>(_ request: FetchRequest, makeSink: @escaping @Sendable () throws -> S) async
        -> FetchResult<S.Output>
    {
        for url in [request.url] + request.fallbackURLs {
            asked.withLock { $0.append(url) }
            guard let body = bodies[url] else { continue }
            do {
                let sink = try makeSink()
                try body.withUnsafeBytes { try sink.write($0) }
                return .success(FetchSuccess(output: try sink.finish(), url: url, kind: ContentKind.sniff(body), bytes: body.count))
            } catch {
                return .failure(.storage(String(describing: error)))
            }
        }
        return .failure(.httpStatus(404))
    }

    func shutdown() {}
}

@Suite struct StubLoaderTests {
    @Test func theRunsBookkeepingWithoutASocket() async throws {
        let photo1 = jpegLike(40_000, seed: 1), photo2 = jpegLike(50_000, seed: 2), face = jpegLike(8000, seed: 10)
        let loader = StubLoader([
            "https://pbs.twimg.com/media/Photo0001?format=jpg&name=orig": photo1,
            "https://pbs.twimg.com/media/Photo0002?format=jpg&name=orig": photo2,
            "https://pbs.twimg.com/profile_images/11/alice_400x400.jpg": face,
            "https://pbs.twimg.com/profile_images/33/carol_normal.jpg": face,
        ])
        let cache = try temporaryDirectory()
        var options = PipelineOptions(cacheRoot: cache)
        options.derive = nil
        options.loader = { _ in loader }
        let run = try await CachePipeline(options: options).run(inputs)
        let m = try run.manifest

        // Each URL asked once; the avatar's 400x400 form first, then the URL as given.
        #expect(Set(loader.requests).count == loader.requests.count)
        #expect(loader.requests.contains("https://pbs.twimg.com/profile_images/33/carol_400x400.jpg"))
        // Stored by content: two URLs with the same bytes are one blob.
        #expect(m.summary.deduplicated == 1)
        #expect(m.summary.downloaded == 4)
        let t101 = try #require(m.tweets.first { $0.id == "101" })
        #expect(t101.media[0].sha256 == BlobHash(hashing: photo1).hex)
        // What was not there is a failure with its reason, and the run finished.
        #expect(m.failures.contains { $0.url == "https://pbs.twimg.com/media/Gone0003?format=jpg&name=orig" && $0.error.code == "http_404" })

        // A second run asks the loader for nothing already cached.
        let before = loader.requests.count
        let again = try await CachePipeline(options: options).run(inputs)
        #expect((try again.manifest).summary.cached == m.summary.cached + m.summary.downloaded)
        let second = Set(loader.requests.dropFirst(before))
        #expect(second.isDisjoint(with: [
            "https://pbs.twimg.com/media/Photo0001?format=jpg&name=orig", "https://pbs.twimg.com/media/Photo0002?format=jpg&name=orig",
            "https://pbs.twimg.com/profile_images/11/alice_400x400.jpg",
        ]))
        #expect(second.contains("https://pbs.twimg.com/media/Gone0003?format=jpg&name=orig"), "failures are tried again")
    }
}

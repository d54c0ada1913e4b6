import CacheCore
import ArgumentParser
import Catalog
import Foundation
import LiveSearch
import MediaFetch
import ObjectStore
import Pipeline
import Synchronization
import TweetModel

/// `watch --stream`: follows the network's stream for the queries (X's filtered
/// stream, a Mastodon instance's hashtag streams, Bluesky's Jetstream) and caches
/// what arrives in batches, each batch one run and one manifest.
struct WatchStreams {
    let command: WatchCommand

    func run(stop: StopSignal) async throws {
        let cache = command.options.cacheURL
        let environment = ProcessInfo.processInfo.environment
        let streams: [any PostStream]
        do {
            let queries = try command.queries.map { text throws(LiveSearchError) in try SearchQuery(text, includeRetweets: command.retweets) }
            switch command.network {
            case .x:
                let credentials = try SearchAPI.v2.credentials(tokenFile: command.live.tokenFile, environment: environment)
                streams = [try XFilteredStream(queries: queries, token: credentials.token, baseURL: command.live.apiBase)]
            case .mastodon:
                let credentials = try SearchAPI.mastodon.credentials(tokenFile: command.live.tokenFile, environment: environment)
                streams = try queries.map { query throws(LiveSearchError) in
                    try MastodonStream(query: query, token: credentials.token, instance: command.instance)
                }
            case .bluesky:
                streams = [try Jetstream(queries: queries, url: command.jetstream, appView: command.live.apiBase)]
            }
        } catch {
            throw LiveSearchRun.exit(for: error)
        }
        if command.pin {
            do {
                try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
                for query in command.queries { try CollectionPins(cacheRoot: cache).pin(query.trimmingCharacters(in: .whitespacesAndNewlines)) }
            } catch {
                throw FailureExit.message("--pin: \(error)", code: 2)
            }
        }
        let pipelineOptions = try command.options.pipelineOptions()
        var fetch = FetchConfiguration()
        fetch.connectTimeout = .seconds(command.options.connectTimeout)
        fetch.certificateAuthorities = command.options.certificateAuthorities
        fetch.maxConcurrentTransfers = streams.count + 2
        let fetcher: HTTPFetcher
        do { fetcher = try HTTPFetcher(configuration: fetch) } catch { throw FailureExit.message(error.description, code: 2) }
        defer { fetcher.shutdown() }

        let quiet = command.options.quiet
        let say: @Sendable (String) -> Void = { line in if !quiet { StandardStreams.error(line + "\n") } }
        var collectorOptions = StreamCollector.Options()
        collectorOptions.batchPosts = command.batchPosts
        collectorOptions.batchInterval = command.batchInterval.duration
        let flush = BatchFlush(command: command, pipelineOptions: pipelineOptions, say: say)
        let name = streams.count == 1 ? streams[0].key : "\(command.network.rawValue)-streams"
        let collector = StreamCollector(cacheRoot: cache, name: name, options: collectorOptions,
                                        problems: { StandardStreams.error($0 + "\n") }) { batch in await flush.run(batch) }
        let recovered = await collector.recover()
        if recovered > 0 { say("watch: cached \(recovered) posts the last watch had received") }

        let follower = StreamFollower()
        let refused = Refusal()
        let followers = Task {
            await withTaskGroup(of: Void.self) { group in
                for stream in streams {
                    let key = stream.key
                    let network = stream.network
                    let start = await collector.cursor(for: key)
                    group.addTask {
                        let session = StreamSession(fetcher: fetcher, clock: SystemWallClock())
                        let ended = await follower.run(stream, session: session, cursor: start, deliver: { event in
                            await collector.receive(event, stream: key, network: network)
                        }, notice: { notice in
                            switch notice {
                            case let .connected(attempt):
                                say("watch: \(stream.name): connecting\(attempt > 1 ? " (attempt \(attempt))" : "")")
                            case let .ended(end, retryIn):
                                say("watch: \(stream.name): \(Self.describe(end))" + (retryIn.map { ", again in \(Self.seconds($0))" } ?? ""))
                            }
                        })
                        if case let .refused(error) = ended { refused.value.withLock { $0 = error } }
                    }
                }
            }
            stop.end()
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                await collector.tick()
            }
        }
        await stop.waitForRequest()
        followers.cancel()
        await followers.value
        ticker.cancel()
        say("watch: writing the last batch")
        await collector.finish()
        let received = await collector.received
        say("watch: stopped; \(received) posts received")
        if let error = refused.value.withLock({ $0 }) { throw FailureExit.message(error.description, code: 2) }
    }

    static func seconds(_ duration: Duration) -> String { String(format: "%.0f s", duration.secondsDouble) }

    static func describe(_ end: StreamEnd) -> String {
        switch end {
        case .closed: "the server closed the stream"
        case .stalled: "nothing received for too long (no heartbeat): reconnecting"
        case let .failed(why): why
        case let .rateLimited(after): "rate limited" + (after.map { " (retry after \(Self.seconds($0)))" } ?? "")
        case let .refused(error): error.description
        case .cancelled: "stopped"
        }
    }
}

/// Caches one batch: a run over its files, then the deletions it carried (of posts
/// the cache holds).
struct BatchFlush: Sendable {
    let command: WatchCommand
    let pipelineOptions: PipelineOptions
    let say: @Sendable (String) -> Void

    func run(_ batch: StreamCollector.Batch) async -> Bool {
        let cache = command.options.cacheURL
        if !batch.files.isEmpty {
            do {
                var inputs = try batch.files.map { url throws(PipelineError) in try ResultsInput.read(url.path) }
                // Posts of one watched query are recorded under it (pins and `tweets --query` name it).
                if command.queries.count == 1 {
                    for i in inputs.indices { inputs[i].query = command.queries[0].trimmingCharacters(in: .whitespacesAndNewlines) }
                }
                let report = try await RunCommand.run(inputs: inputs, options: pipelineOptions, flags: command.options, summary: false)
                let s = report.summary
                say("watch: cached a batch of \(batch.posts) post\(batch.posts == 1 ? "" : "s"): \(s.tweets) read, "
                    + "\(s.downloaded) media fetched, \(s.cached) already held, \(s.failed) failed")
            } catch {
                if !(error is ExitCode) { StandardStreams.error("watch: \(error)\n") }
                return false
            }
        }
        guard !batch.deletions.isEmpty else { return true }
        var keys: Set<PostIdentity> = []
        do {
            let catalog = try PostCatalog(cacheRoot: cache)
            _ = try catalog.refresh()
            var asked: Set<PostIdentity> = []
            for deletion in batch.deletions {
                guard let network = Network(rawValue: deletion.network) else { continue }
                if let id = deletion.id { asked.insert(PostIdentity(network: network, id: id)) }
                if let user = deletion.user {
                    keys.formUnion(try catalog.postKeys(byUserID: user).filter { $0.network == network })
                }
            }
            keys.formUnion(try catalog.known(asked))
        } catch {
            StandardStreams.error("watch: cannot read the catalog for the stream's deletions (\(error))\n")
            return false
        }
        guard !keys.isEmpty else { return true }
        let opened: Cache
        do { opened = try Cache.open(cache) } catch {
            StandardStreams.error("watch: \(error.description)\n")
            return false
        }
        var forgetter = Forgetter(layout: opened.layout)
        let store: (any CacheStorage)?
        do { store = try await command.options.storage.open(writes: true) } catch {
            StandardStreams.error("watch: \(error)\n")
            return false
        }
        defer { store?.shutdown() }
        forgetter.storage = store
        do {
            let report = try await forgetter.run(keys.sorted().map { Forgetter.Request(key: $0, reason: "deleted (stream)") })
            say("watch: forgot \(report.posts.count) post\(report.posts.count == 1 ? "" : "s") deleted on the network")
        } catch {
            StandardStreams.error("watch: \(error.description)\n")
            return false
        }
        return true
    }
}

/// The refusal that ended a stream (a token refused), said when the watch stops.
private final class Refusal: Sendable {
    let value = Mutex<LiveSearchError?>(nil)
}

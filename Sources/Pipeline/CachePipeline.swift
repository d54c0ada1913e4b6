import Catalog
import BlobStore
import Foundation
import Logging
import MediaFetch
import TweetModel

/// Search results in, cached media and a manifest out.
///
/// One run parses every input, plans the unique URLs, skips what the index already
/// has, downloads the rest concurrently straight into the content-addressed store,
/// records each outcome in the index, and writes a manifest linking every tweet to
/// its bytes. Per-item failures are recorded and never stop the run; only an
/// unusable cache or manifest location does.
public final class CachePipeline: Sendable {
    public let options: PipelineOptions
    public let store: BlobStore
    public let index: CacheIndex
    private let logger: Logger

    public init(options: PipelineOptions, logger: Logger = Logger(label: "tweetcache.pipeline")) throws(PipelineError) {
        self.options = options
        self.logger = logger
        do {
            store = try BlobStore(root: options.cacheRoot)
            index = try CacheIndex(path: store.indexURL)
        } catch {
            throw .cache(error.description)
        }
    }

    /// The result of a run: the manifest and where it was written.
    public struct RunResult: Sendable {
        public var manifest: Manifest
        public var manifestURL: URL
    }

    public func run(_ inputs: [ResultsInput], progress: RunProgress = RunProgress()) async throws(PipelineError)
        -> RunResult
    {
        let started = ContinuousClock.now
        var phase = PhaseTimer(logger: logger)
        let parsed = inputs.map { ($0.name, ResultsParser.parse($0.data, source: $0.name)) }
        phase.mark("parse")
        let allTweets = parsed.flatMap { _, results in results.pages.flatMap { $0.tweets + $0.includedTweets } }
        let plan = FetchPlan(tweets: allTweets, includeVideos: options.includeVideos)
        progress.setTotal(plan.items.count)

        var outcomes: [String: ItemOutcome] = [:]
        var toFetch: [FetchPlan.Item] = []
        let known = (try? index.lookup(urls: plan.items.map(\.url))) ?? [:]
        for item in plan.items {
            if let cached = known[item.url].flatMap(cachedOutcome) {
                outcomes[item.url] = cached
                progress.finishOne(cached: true)
            } else {
                toFetch.append(item)
            }
        }
        phase.mark("index lookups")
        if !outcomes.isEmpty { try? index.touch(urls: Array(outcomes.keys)) }
        phase.mark("touch")

        var fetchConfig = options.fetch
        fetchConfig.byteCounter = progress.bytes
        let fetched = try await fetchAll(toFetch, configuration: fetchConfig, progress: progress)
        outcomes.merge(fetched.outcomes) { _, new in new }
        phase.mark("fetch \(toFetch.count)")

        var summary = RunSummary()
        summary.urls = plan.items.count
        summary.cached = plan.items.count - toFetch.count
        summary.downloaded = fetched.outcomes.values.filter { if case .stored = $0 { true } else { false } }.count
        summary.failed = outcomes.values.filter { if case .failed = $0 { true } else { false } }.count
        summary.deduplicated = fetched.deduplicated
        summary.bytesDownloaded = fetched.bytes
        for case let .failed(f) in outcomes.values { summary.failuresByReason[f.code, default: 0] += 1 }

        var derived: [BlobHash: DeriveOutcome] = [:]
        if let derive = options.derive {
            derived = await deriveAll(plan: plan, outcomes: outcomes, options: derive, progress: progress)
            summary.derived = derived.values.filter { !$0.newRecords.isEmpty }.count
            summary.deriveFailed = derived.values.filter { $0.error != nil }.count
            phase.mark("derive \(summary.derived)")
        }

        var manifest = ManifestBuilder(outcomes: outcomes, plan: plan, derived: derived).build(
            parsed: parsed, cacheRoot: store.root.path, summary: summary, now: options.now())
        manifest.summary.seconds = (ContinuousClock.now - started).secondsDouble
        phase.mark("build manifest")
        let url = try ManifestWriter(root: store.root).write(
            &manifest, extraPath: options.extraManifestPath, tag: options.manifestTag)
        phase.mark("write manifest")
        // The catalog learns of the run now, while its file is in the page cache. Should
        // that fail, nothing is lost: the manifest is the record, and the next reader's
        // refresh reads it.
        if let catalog = try? PostCatalog(cacheRoot: store.root) {
            _ = try? catalog.add(manifestNamed: url.lastPathComponent)
        }
        phase.mark("catalog")
        return RunResult(manifest: manifest, manifestURL: url)
    }

    /// An index entry whose blob is still on disk counts as cached; a dangling one
    /// (blob deleted by hand or by gc) is fetched again.
    private func cachedOutcome(_ record: URLRecord) -> ItemOutcome? {
        guard store.contains(record.hash) else { return nil }
        return .stored(hash: record.hash, size: record.size, contentType: record.contentType, fromCache: true)
    }

    /// Derives thumbnails (every image) and tiles (media, not avatars) for the run's
    /// images, several at once, each decoded once; records what it made.
    private func deriveAll(
        plan: FetchPlan, outcomes: [String: ItemOutcome], options: DeriveOptions, progress: RunProgress
    ) async
        -> [BlobHash: DeriveOutcome]
    {
        var wantsTiles: [BlobHash: Bool] = [:]
        var order: [BlobHash] = []
        for item in plan.items where item.role != .video {
            guard case let .stored(hash, _, type, _) = outcomes[item.url],
                  type == "image/jpeg" || type == "image/png" || type == "image/gif" || type == "image/webp"
            else { continue }
            if wantsTiles[hash] == nil { order.append(hash) }
            wantsTiles[hash, default: false] = wantsTiles[hash, default: false] || item.role != .avatar
        }
        guard !order.isEmpty else { return [:] }
        let existing = (try? index.derived(for: order)) ?? [:]
        let known = (try? index.blobs(order)) ?? [:]
        progress.setDeriveTotal(order.count)
        let lanes = max(1, options.concurrency)
        // Pack folders are flushed once for the run, before any pack row is recorded.
        let pending = PendingDirectories()
        let deriver = Deriver(
            store: store, files: DerivedFiles(cacheRoot: store.root), options: options,
            threadsPerImage: order.count >= lanes ? 1 : lanes, pendingDirectories: pending)
        var results: [BlobHash: DeriveOutcome] = [:]
        await withTaskGroup(of: DeriveOutcome.self) { group in
            var next = 0
            func startNext() {
                guard next < order.count else { return }
                let hash = order[next]
                let size = known[hash].flatMap { r in r.width.flatMap { w in r.height.map { (width: w, height: $0) } } }
                let job = DeriveJob(hash: hash, wantsTiles: wantsTiles[hash] ?? false,
                                    existing: existing[hash] ?? [], knownSize: size)
                next += 1
                group.addTask { deriver.derive(job) }
            }
            for _ in 0..<min(lanes, order.count) { startNext() }
            while let outcome = await group.next() {
                results[outcome.hash] = outcome
                progress.deriveOne()
                startNext()
            }
        }
        let fresh = results.values.flatMap(\.newRecords)
        do {
            try pending.sync()
            try index.recordDerived(fresh)
            // Rows replaced (old layout, a pack of another tile size), then old trees.
            let replacing = results.values.filter { !$0.obsolete.isEmpty && $0.error == nil }
            try index.removeDerived(replacing.flatMap(\.obsolete))
            for outcome in replacing where outcome.replacesLegacyFolder {
                try? FileManager.default.removeItem(at: store.layout.url(CacheLayout.legacyFolder(outcome.hash)))
            }
            let sized = results.values.compactMap { o -> BlobRecord? in
                guard !o.newRecords.isEmpty || known[o.hash]?.width == nil, let w = o.width, let h = o.height,
                      let size = try? store.path(for: o.hash).resourceValues(forKeys: [.fileSizeKey]).fileSize
                else { return nil }
                return BlobRecord(hash: o.hash, size: size, width: w, height: h)
            }
            try index.recordBlobs(sized)
        } catch {
            logger.error("could not record derived files: \(error)")
        }
        return results
    }

    struct Fetched {
        var outcomes: [String: ItemOutcome] = [:]
        var deduplicated = 0
        var bytes = 0
    }

    /// Downloads `items` through the fetcher's batch path: it caps transfers on the
    /// network, and the window caps how many items (each with an open temp file once
    /// started) wait for a slot. Results arrive in batches on the fetcher's threads.
    private func fetchAll(_ items: [FetchPlan.Item], configuration: FetchConfiguration, progress: RunProgress)
        async throws(PipelineError) -> Fetched
    {
        guard !items.isEmpty else { return Fetched() }
        let fetcher: any MediaLoading
        do {
            fetcher = try options.loader?(configuration) ?? HTTPFetcher(configuration: configuration, logger: logger)
        } catch {
            throw .fetcher(String(describing: error))
        }
        defer { fetcher.shutdown() }
        let store = self.store
        // Wide enough that items waiting for a flush to disk do not idle the network,
        // bounded because each item started holds a file descriptor.
        let transfers = configuration.maxConcurrentTransfers
        let window = max(8, min(transfers * 8, max(transfers * 2, 256)))
        let directories = PendingDirectories()
        let tally = FetchTally(recorder: IndexRecorder(index: index, directories: directories, logger: logger))
        await fetcher.fetchAll(
            items.map { FetchRequest(url: $0.url, fallbackURLs: $0.fallbacks, expected: $0.role.expected) },
            window: window,
            makeSink: { try store.makeWriter(deferringDirectorySync: directories) }
        ) { results in
            tally.record(results.map { (items[$0.index], $0.result) }, progress: progress)
        }
        let (result, gathered) = tally.take()
        var recorder = gathered
        await recorder.finish()
        // Whatever a failed batch left pending is tried once more; if the cache's
        // directories cannot be flushed, the run stops before a manifest or an index
        // row names a blob a power cut could take away.
        if !directories.isEmpty {
            do { try directories.sync() } catch { throw .cache("could not flush the blob directories: \(error)") }
        }
        return result
    }
}

/// What a run's downloads came to, gathered from the fetcher's threads as they finish.
private final class FetchTally: @unchecked Sendable {
    private let lock = NSLock()
    private var fetched = CachePipeline.Fetched()
    private var recorder: IndexRecorder

    init(recorder: IndexRecorder) { self.recorder = recorder }

    func record(_ results: [(FetchPlan.Item, FetchResult<StoredBlob>)], progress: RunProgress) {
        lock.lock()
        defer { lock.unlock() }
        for (item, outcome) in results {
            switch outcome {
            case let .success(ok):
                let blob = ok.output
                let type = ok.kind.mimeType
                fetched.outcomes[item.url] = .stored(hash: blob.hash, size: blob.size, contentType: type, fromCache: false)
                fetched.bytes += ok.bytes
                if blob.alreadyPresent { fetched.deduplicated += 1 }
                let urls = ok.url == item.url ? [item.url] : [item.url, ok.url]
                recorder.stored(urls: urls, blob: blob, contentType: type, status: ok.httpStatus)
                progress.finishOne()
            case let .failure(f):
                fetched.outcomes[item.url] = .failed(f)
                recorder.failed(url: item.url, failure: f)
                progress.finishOne(failed: true)
            }
        }
    }

    func take() -> (CachePipeline.Fetched, IndexRecorder) {
        lock.withLock { (fetched, recorder) }
    }
}

/// Logs how long each phase of a run took, at debug level (`TWEETCACHE_LOG=debug`).
struct PhaseTimer {
    let logger: Logger
    private var last = ContinuousClock.now

    init(logger: Logger) { self.logger = logger }

    mutating func mark(_ phase: @autoclosure () -> String) {
        let now = ContinuousClock.now
        if logger.logLevel <= .debug {
            logger.debug("phase", metadata: ["phase": "\(phase())", "ms": "\(Int((now - last).secondsDouble * 1000))"])
        }
        last = now
    }
}

extension Duration {
    /// Seconds as a floating-point number, for rates and human-readable timings.
    public var secondsDouble: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

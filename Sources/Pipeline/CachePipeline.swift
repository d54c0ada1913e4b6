import CacheCore
import Catalog
import BlobStore
internal import CTweetCache
import Foundation
import Logging
import MediaFetch
import MediaTypes
import TweetModel

/// Search results in, cached media and a manifest out.
///
/// A run reads its inputs a piece at a time and takes their posts in batches
/// (``PipelineOptions/batchSize``): for each batch it plans the unique URLs, skips
/// what the index already has, downloads the rest concurrently straight into the content-addressed
/// store, records each outcome in the index, derives thumbnails and pyramids, and
/// appends the batch's posts to the manifest. What it holds is one batch and what it
/// remembers of the run (``RunLedger``), not the run: a million posts pass in the
/// memory of a few thousand. Per-item failures are recorded and never stop the run;
/// only an unusable cache or manifest location does.
public final class CachePipeline: Sendable {
    public let options: PipelineOptions
    /// The cache this run writes into, opened once.
    public let cache: Cache
    public var store: BlobStore { cache.blobs }
    public var index: CacheIndex { cache.index }
    let logger: Logger

    /// Opens the cache at `options.cacheRoot` (converting a layout before packs
    /// before this run adds to it) and runs into it.
    public convenience init(options: PipelineOptions, logger: Logger = Logger(label: "tweetcache.pipeline")) throws(PipelineError) {
        let cache: Cache
        do { cache = try Cache.open(options.cacheRoot, logger: logger) } catch { throw .cache(error.unusableReason) }
        self.init(cache: cache, options: options, logger: logger)
    }

    /// Runs into a cache already open (a server's, a watch's), sharing its index.
    public init(cache: Cache, options: PipelineOptions, logger: Logger = Logger(label: "tweetcache.pipeline")) {
        self.options = options
        self.cache = cache
        self.logger = logger
    }

    /// The result of a run: its summary and where its manifest was written.
    public struct RunResult: Sendable {
        public var summary: RunSummary
        public var sources: [Manifest.Source]
        public var manifestURL: URL
        /// What the run's own settings got wrong (a `--mirror` no URL matched), for
        /// the `--json` problems beside the inputs' own.
        public var configurationProblems: [Manifest.Problem] = []

        /// The whole manifest, read back from its file: for small runs and tests. A
        /// large run's is read a post at a time (``ManifestFile``).
        public var manifest: Manifest {
            get throws { try Manifest.read(from: manifestURL) }
        }

        /// The URLs the run could not cache, read back from the manifest without its posts.
        public func failures() throws -> [Manifest.Failure] {
            try ManifestFile.failures(at: manifestURL)
        }
    }

    public func run(_ inputs: [ResultsInput], progress: RunProgress = RunProgress()) async throws(PipelineError)
        -> RunResult
    {
        let started = ContinuousClock.now
        let generatedAt = options.now()
        let layout = store.layout
        // A copy the run cannot write is found before anything is downloaded.
        var copy: ManifestCopy?
        if let path = options.extraManifestPath { copy = try ManifestCopy(path: path) }
        let writer: ManifestStreamWriter
        do {
            writer = try ManifestStreamWriter(
                directory: layout.manifestsURL, generatedAt: generatedAt,
                tool: "tweetcache \(TweetCacheVersion.string)", cacheRoot: store.root.path)
        } catch {
            throw .manifest((error as NSError).localizedDescription)
        }
        let loader = LazyLoader(options: options, byteCounter: progress.bytes, logger: logger)
        defer { loader.shutdown() }
        await options.publisher?.begin(run: writer.temporaryURL.lastPathComponent)
        do {
            return try await streamAndFinish(inputs, writer: writer, loader: loader, generatedAt: generatedAt,
                                             started: started, progress: progress, copy: copy)
        } catch {
            // A run that stops takes its lease with it: a lease left behind holds off
            // `gc --store` until it is old.
            await options.publisher?.end()
            throw error
        }
    }

    /// A post `forget` removed, or a repost of one (which goes with it).
    static func isForgotten(_ tweet: Tweet, _ forgotten: Set<PostIdentity>) -> Bool {
        forgotten.contains(PostIdentity(network: tweet.network, id: tweet.id))
            || tweet.references.contains { $0.kind == .retweeted && forgotten.contains(PostIdentity(network: tweet.network, id: $0.id)) }
    }

    private func streamAndFinish(
        _ inputs: [ResultsInput], writer: ManifestStreamWriter, loader: LazyLoader, generatedAt: Date,
        started: ContinuousClock.Instant, progress: RunProgress, copy: ManifestCopy?
    ) async throws(PipelineError) -> RunResult {
        let layout = store.layout
        var ledger = RunLedger()
        ledger.summary.downloadSeconds = 0
        var sources: [Manifest.Source] = []
        var postsSinceTrim = 0
        let sizes = inputs.map(\.knownSize)
        progress.addInputTotal(sizes.reduce(0) { $0 + ($1 ?? 0) })
        var inputsDone = 0  // bytes of the inputs before this one
        // Posts `forget` removed stay out, whatever old page or replay names them.
        let tombstones = TombstoneLog(cacheRoot: layout.root)
        let tombstonesAtStart = tombstones.size
        let forgotten: Set<PostIdentity>
        do { forgotten = try tombstones.keys() } catch {
            // Said: a run that cannot read the log may bring back what was forgotten.
            logger.error("\(error); forgotten posts are not left out of this run")
            forgotten = []
        }
        for (input, knownSize) in zip(inputs, sizes) {
            var source = SourceTally(path: input.name, search: input.search)
            let stream: ResultsStream
            do {
                stream = try input.stream(spool: layout.manifestsURL)
            } catch {
                source.add(problems: [ParseProblem(source: input.name, location: "document", message: error.description)])
                ledger.summary.problems += 1
                sources.append(source.entry)
                inputsDone += knownSize ?? 0
                progress.setInputDone(inputsDone)
                continue
            }
            if knownSize == nil { progress.addInputTotal(stream.size) }
            // The next piece is parsed on another thread while this one is fetched,
            // with how far into the input it ends.
            var pending = Task.detached { [stream] in stream.next().map { ($0, stream.consumed) } }
            var pieceStart = 0
            while let (piece, pieceEnd) = await pending.value {
                pending = Task.detached { [stream] in stream.next().map { ($0, stream.consumed) } }
                ledger.summary.problems += source.add(piece)
                // Progress within the piece: its bytes, shared out over its posts as
                // their batches are done.
                let piecePosts = piece.pages.reduce(0) { $0 + $1.tweets.count }
                progress.addPosts(piecePosts)
                var postsTaken = 0
                let offset = { [inputsDone, pieceStart] (posts: Int) -> Int in
                    let share = piecePosts == 0 ? 1 : Double(posts) / Double(piecePosts)
                    return inputsDone + pieceStart + Int(Double(pieceEnd - pieceStart) * share)
                }
                var batch = PostBatch()
                for page in piece.pages {
                    for tweet in page.tweets {
                        postsTaken += 1
                        if !forgotten.isEmpty, Self.isForgotten(tweet, forgotten) {
                            ledger.summary.forgotten = (ledger.summary.forgotten ?? 0) + 1
                            continue
                        }
                        guard ledger.topPosts.insert(postID: tweet.id) else { continue }
                        batch.top.append((tweet, page.query ?? input.query, page.format))
                        if batch.count >= max(1, options.batchSize) {
                            progress.beginBatch(endingAt: offset(postsTaken))
                            try await process(batch, source: input.name, ledger: &ledger, writer: writer,
                                              loader: loader, progress: progress)
                            batch = PostBatch()
                            progress.setInputDone(offset(postsTaken))
                        }
                    }
                    for tweet in page.includedTweets
                    where forgotten.isEmpty || !Self.isForgotten(tweet, forgotten) {
                        guard ledger.includedPosts.insert(postID: tweet.id) else { continue }
                        batch.included.append((tweet, page.query ?? input.query, page.format))
                    }
                }
                progress.beginBatch(endingAt: offset(piecePosts))
                try await process(batch, source: input.name, ledger: &ledger, writer: writer, loader: loader,
                                  progress: progress)
                progress.setInputDone(offset(piecePosts))
                pieceStart = pieceEnd
                // What the batches freed goes back to the kernel, about once a batch of
                // posts (not once a piece: many small input files are a piece each):
                // glibc keeps freed memory inside its heaps, so a long run's peak grew
                // with it (a million-post fetch: 130 MB, 117 MB with this, no slower).
                postsSinceTrim += piece.pages.reduce(0) { $0 + $1.tweets.count }
                if postsSinceTrim >= max(1, options.batchSize) {
                    _ = tc_malloc_trim()
                    postsSinceTrim = 0
                }
            }
            sources.append(source.entry)
            inputsDone += knownSize ?? stream.size
            progress.setInputDone(inputsDone)
        }
        // What the run remembered and its connections are let go before the catalog
        // reads the manifest: the run's peak memory is one or the other, not both.
        let summary = ledger.summary
        let fromStore = (copied: ledger.copiedFromStore, bytes: ledger.bytesFromStore)
        // A mirror no URL of the run went through was most likely mistyped (a host that
        // never matches, a port the URLs do not name): said, not silently ignored.
        var unusedMirrors: [Manifest.Problem] = []
        for host in options.fetch.mirrors.hosts where !ledger.mirrorsUsed.contains(host) && summary.urls > 0 {
            let why = "no URL of this run has that host\(host.contains(":") ? " and port" : ""); every URL went to its own host"
            logger.warning("--mirror \(host)=…: \(why)")
            unusedMirrors.append(Manifest.Problem(source: "--mirror", location: host, message: why))
        }
        ledger = RunLedger()
        loader.shutdown()
        var result = try await finish(writer: writer, summary: summary, sources: sources, generatedAt: generatedAt,
                                      started: started, fromStore: fromStore, copy: copy)
        result.configurationProblems = unusedMirrors
        // A forget while the run went: what the run wrote before it knew is removed from
        // its manifest now (the forget could not see a manifest not yet written).
        // The pages a search saved for this run still hold the posts it left out.
        if tombstones.size != tombstonesAtStart || (result.summary.forgotten ?? 0) > 0 {
            do {
                try await Forgetter(layout: layout).applyToRun(manifestName: result.manifestURL.lastPathComponent)
            } catch {
                logger.error("could not remove forgotten posts from this run's files: \(error)")
            }
        }
        return result
    }

    /// Writes the manifest's tail, publishes it where a publisher says, and puts it in
    /// place; the catalog learns of it last.
    private func finish(
        writer: ManifestStreamWriter, summary: RunSummary, sources: [Manifest.Source], generatedAt: Date,
        started: ContinuousClock.Instant, fromStore: (copied: Int, bytes: Int) = (0, 0), copy: ManifestCopy?
    ) async throws(PipelineError) -> RunResult {
        var summary = summary
        summary.tweets = writer.postCount
        summary.includedTweets = writer.includedCount
        var extraFailures: [Manifest.Failure] = []
        if let publisher = options.publisher {
            let (store, failures) = await publisher.finishObjects()
            summary.store = store
            if options.blobSource != nil {
                summary.store?.copiedFromStore = fromStore.copied
                summary.store?.bytesFromStore = fromStore.bytes
            }
            extraFailures = failures
        }
        var names = ManifestNames(directory: self.store.layout.manifestsURL, generatedAt: generatedAt,
                                  tag: options.manifestTag)
        var url = names.next()
        do {
            while true {
                summary.manifestPath = url.path
                summary.seconds = (ContinuousClock.now - started).secondsDouble
                if summary.store != nil, summary.store?.failed == 0 {
                    summary.store?.manifestKey = CacheLayout.manifest(url.lastPathComponent)
                }
                try writer.writeTail(extraFailures: extraFailures, sources: sources, summary: summary)
                if let publisher = options.publisher, summary.store?.manifestKey != nil,
                   let failed = await publisher.publishManifest(file: writer.temporaryURL, name: url.lastPathComponent) {
                    summary.store?.manifestKey = nil
                    summary.store?.failed += 1
                    extraFailures.append(failed)
                    try writer.writeTail(extraFailures: extraFailures, sources: sources, summary: summary)
                }
                do {
                    try writer.commit(to: url)
                    break
                } catch where FileManager.default.fileExists(atPath: url.path) {
                    url = names.next()  // another run took the name meanwhile
                }
            }
        } catch {
            throw .manifest((error as NSError).localizedDescription)
        }
        await options.publisher?.end()
        // The catalog learns of the run now, while its file is in the page cache. Should
        // that fail, nothing is lost: the manifest is the record, and the next reader's
        // refresh reads it.
        do {
            _ = try PostCatalog(cacheRoot: self.store.root).add(manifestNamed: url.lastPathComponent)
        } catch {
            logger.warning("the catalog could not add this run now (\(error)); the next reader reads its manifest")
        }
        // Last: the run's own manifest is in place, published and in the catalog,
        // whether or not the copy can be written.
        try copy?.write(from: url)
        return RunResult(summary: summary, sources: sources, manifestURL: url)
    }

    /// One batch: its URLs resolved (known, fetched or failed), its images derived,
    /// its posts appended to the manifest and handed to the publisher.
    private func process(
        _ batch: PostBatch, source: String, ledger: inout RunLedger, writer: ManifestStreamWriter,
        loader: LazyLoader, progress: RunProgress
    ) async throws(PipelineError) {
        guard batch.count > 0 else { return }
        var phase = PhaseTimer(logger: logger)
        let plan = FetchPlan(tweets: batch.top.map(\.0) + batch.included.map(\.0), includeVideos: options.includeVideos)
        let mirrors = options.fetch.mirrors
        if !mirrors.isEmpty, ledger.mirrorsUsed.count < mirrors.hosts.count {
            for item in plan.items {
                for url in [item.url] + item.fallbacks { if let host = mirrors.mirrorHost(of: url) { ledger.mirrorsUsed.insert(host) } }
            }
        }
        var outcomes: [String: ItemOutcome] = [:]
        var unknown: [FetchPlan.Item] = []
        for item in plan.items {
            if let known = ledger.outcome(of: item.url) { outcomes[item.url] = known } else { unknown.append(item) }
        }
        var toFetch: [FetchPlan.Item] = []
        let indexed = (try? index.lookup(urls: unknown.map(\.url))) ?? [:]
        if let source = options.blobSource {
            // Known by URL (another machine's run, synced) but not on this disk: read
            // from the shared store, checked against its hash, not from the origin.
            let absent = Array(Set(indexed.values.map(\.hash).filter { !store.contains($0) }))
            if !absent.isEmpty {
                let copied = await source.copy(absent, into: store)
                ledger.copiedFromStore += copied.hashes.count
                ledger.bytesFromStore += copied.bytes
                phase.mark("from the store \(copied.hashes.count)/\(absent.count)")
            }
        }
        var touched: [String] = []
        for item in unknown {
            // Met before in this run and forgotten by the ledger: the index has it now,
            // counted already.
            let first = ledger.seenURLs.insert(hash: item.url.hashValue)
            if first {
                ledger.summary.urls += 1
                progress.addTotal(1)
            }
            if let cached = indexed[item.url].flatMap(cachedOutcome) {
                outcomes[item.url] = cached
                ledger.remember(item.url, cached)
                touched.append(item.url)
                if first {
                    ledger.summary.cached += 1
                    progress.finishOne(cached: true)
                }
            } else {
                toFetch.append(item)
            }
        }
        if !touched.isEmpty { try? index.touch(urls: touched) }
        phase.mark("index lookups \(unknown.count)")

        if !toFetch.isEmpty {
            let downloadStarted = ContinuousClock.now
            let fetched = try await fetchAll(toFetch, loader: loader, progress: progress)
            ledger.summary.downloadSeconds = (ledger.summary.downloadSeconds ?? 0)
                + (ContinuousClock.now - downloadStarted).secondsDouble
            for (url, outcome) in fetched.outcomes {
                outcomes[url] = outcome
                ledger.remember(url, outcome)
                switch outcome {
                case .stored: ledger.summary.downloaded += 1
                case let .failed(f):
                    ledger.summary.failed += 1
                    ledger.summary.failuresByReason[f.code, default: 0] += 1
                }
            }
            ledger.summary.deduplicated += fetched.deduplicated
            ledger.summary.bytesDownloaded += fetched.bytes
            do {
                for item in toFetch {
                    guard case let .failed(f) = fetched.outcomes[item.url] else { continue }
                    try writer.appendFailure(Manifest.Failure(url: item.url, role: item.role.rawValue, error: MediaError(f)))
                }
            } catch {
                throw .manifest((error as NSError).localizedDescription)
            }
            phase.mark("fetch \(toFetch.count)")
        }

        var derived: [BlobHash: DeriveOutcome] = [:]
        if let derive = options.derive {
            derived = await deriveAll(plan: plan, outcomes: outcomes, options: derive, ledger: &ledger, progress: progress)
            phase.mark("derive \(derived.count)")
        }

        let builder = ManifestBuilder(outcomes: outcomes, derived: derived)
        var entries: [ManifestTweet] = []
        entries.reserveCapacity(batch.count)
        do {
            for (tweet, query, format) in batch.top {
                let entry = builder.entry(tweet, query: query, format: format, source: source)
                try writer.append(entry)
                entries.append(entry)
            }
            for (tweet, query, format) in batch.included {
                let entry = builder.entry(tweet, query: query, format: format, source: source)
                try writer.appendIncluded(entry)
                entries.append(entry)
            }
        } catch {
            throw .manifest((error as NSError).localizedDescription)
        }
        phase.mark("manifest \(batch.count)")
        if let publisher = options.publisher {
            await publisher.publish(entries)
            phase.mark("publish")
        }
    }

    /// An index entry whose blob is still on disk counts as cached; a dangling one
    /// (blob deleted by hand or by gc) is fetched again.
    private func cachedOutcome(_ record: URLRecord) -> ItemOutcome? {
        guard store.contains(record.hash) else { return nil }
        return .stored(hash: record.hash, size: record.size, kind: ContentKind(mimeType: record.contentType), fromCache: true)
    }

}

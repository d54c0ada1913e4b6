import Catalog
import BlobStore
internal import CTweetCache
import Foundation
import Logging
import MediaFetch
import MediaTypes
import TweetModel

/// A run's posts waiting for their URLs, with the page facts their entries carry.
struct PostBatch {
    var top: [(Tweet, String?, SourceFormat)] = []
    var included: [(Tweet, String?, SourceFormat)] = []
    var count: Int { top.count + included.count }
}

/// The loader of a run, made when the first batch needs to download something (a
/// run of cached posts starts no threads), and kept for the run so connections are
/// reused from batch to batch.
final class LazyLoader: @unchecked Sendable {
    let configuration: FetchConfiguration
    private let make: () throws -> any MediaLoading
    private var loader: (any MediaLoading)?
    private let lock = NSLock()

    init(options: PipelineOptions, byteCounter: ByteCounter, logger: Logger) {
        var configuration = options.fetch
        configuration.byteCounter = byteCounter
        self.configuration = configuration
        let factory = options.loader
        make = { [configuration] in
            try factory?(configuration) ?? HTTPFetcher(configuration: configuration, logger: logger)
        }
    }

    func get() throws(PipelineError) -> any MediaLoading {
        lock.lock()
        defer { lock.unlock() }
        if let loader { return loader }
        do {
            let made = try make()
            loader = made
            return made
        } catch {
            throw .fetcher(String(describing: error))
        }
    }

    /// Shuts the loader down once; a later call does nothing.
    func shutdown() {
        let loader = lock.withLock { () -> (any MediaLoading)? in
            defer { self.loader = nil }
            return self.loader
        }
        loader?.shutdown()
    }
}

/// What a run's downloads came to, gathered from the fetcher's threads as they finish.
final class FetchTally: @unchecked Sendable {
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
                fetched.outcomes[item.url] = .stored(hash: blob.hash, size: blob.size, kind: ok.kind, fromCache: false)
                fetched.bytes += ok.bytes
                if blob.alreadyPresent { fetched.deduplicated += 1 }
                let urls = ok.url == item.url ? [item.url] : [item.url, ok.url]
                recorder.stored(urls: urls, blob: blob, kind: ok.kind, status: ok.httpStatus)
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

import BlobStore
import CacheCore
import Catalog
import ArgumentParser
import Foundation
import Pipeline
#if canImport(Glibc)
import Glibc
#endif

/// Runs the pipeline with a progress display and prints the summary: shared by
/// `fetch` and `demo` so both look and behave the same.
enum RunCommand {
    struct Report {
        var summary: RunSummary
        var sources: [Manifest.Source]
        /// Read back from the manifest, without its posts.
        var failures: [Manifest.Failure]
        /// What the run's settings got wrong (``CachePipeline/RunResult/configurationProblems``).
        var configurationProblems: [Manifest.Problem] = []
        /// A run whose files did not all reach the store is not done, strict or not.
        func failed(strict: Bool) -> Bool {
            (summary.store?.failed ?? 0) > 0 || strict && (summary.failed > 0 || summary.problems > 0)
        }
    }

    /// `summary: false` for runs that say their own one line (a `watch --stream` batch):
    /// neither progress nor the summary is printed.
    static func run(inputs: [ResultsInput], options: PipelineOptions, flags: FetchOptions, summary: Bool = true)
        async throws -> Report
    {
        var options = options
        let store = try await flags.storage.open(writes: true)
        defer { store?.shutdown() }
        // The cache, opened once for the run: its layout for the bucket's publisher and
        // sync, its blobs for what is read from the bucket instead of the origin.
        let cache: Cache
        do { cache = try Cache.open(options.cacheRoot) } catch { throw FailureExit.message(error.description, code: 2) }
        if let store {
            options.manifestTag = StorePublisher.manifestTag()
            options.publisher = StorePublisher(storage: store, layout: cache.layout).session()
            // What other machines stored is known by URL first (their new manifests,
            // copied incrementally), then read from the bucket instead of the origin.
            do { _ = try await BucketSync(storage: store, layout: cache.layout).run() } catch {
                StandardStreams.error("tweetcache: could not read the bucket's runs (\(error.description)); fetching from the origins\n")
            }
            options.blobSource = BucketHydrator(storage: store, store: cache.blobs)
        }
        let pipeline = CachePipeline(cache: cache, options: options)
        let progress = RunProgress()
        let display = ProgressDisplay(progress: progress, enabled: summary && !flags.quiet && !flags.json)
        let ticker = Task { await display.run() }
        let result: CachePipeline.RunResult
        do {
            result = try await pipeline.run(inputs, progress: progress)
        } catch {
            ticker.cancel()
            throw FailureExit.message(error.description, code: 2)
        }
        ticker.cancel()
        _ = await ticker.result
        display.finish()
        let report = Report(summary: result.summary, sources: result.sources, failures: (try? result.failures()) ?? [],
                            configurationProblems: result.configurationProblems)
        if !summary {
        } else if flags.json {
            print(String(decoding: try SummaryJSON.encode(report), as: UTF8.self))
        } else {
            SummaryPrinter.print(report)
        }
        return report
    }
}

/// Exit with a message on stderr and a status, without ArgumentParser's usage text.
/// (Not `CleanExit`: ArgumentParser has one, for help and version, which this must not shadow.)
enum FailureExit {
    static func message(_ text: String, code: Int32) -> ExitCode {
        StandardStreams.error(("tweetcache: " + text + "\n"))
        return ExitCode(code)
    }
}

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
        var manifest: Manifest
        /// A run whose files did not all reach the store is not done, strict or not.
        func failed(strict: Bool) -> Bool {
            (manifest.summary.store?.failed ?? 0) > 0
                || strict && (manifest.summary.failed > 0 || manifest.summary.problems > 0)
        }
    }

    static func run(inputs: [ResultsInput], options: PipelineOptions, flags: FetchOptions) async throws -> Report {
        var options = options
        let store = try await flags.storage.client()
        defer { store?.shutdown() }
        if store != nil { options.manifestTag = StorePublisher.manifestTag() }
        let pipeline: CachePipeline
        do { pipeline = try CachePipeline(options: options) } catch { throw CleanExit.message(error.description, code: 2) }
        let progress = RunProgress()
        let display = ProgressDisplay(progress: progress, enabled: !flags.quiet && !flags.json)
        let ticker = Task { await display.run() }
        let result: CachePipeline.RunResult
        do {
            result = try await pipeline.run(inputs, progress: progress)
        } catch {
            ticker.cancel()
            throw CleanExit.message(error.description, code: 2)
        }
        ticker.cancel()
        _ = await ticker.result
        display.finish()
        var manifest = result.manifest
        if let store {
            _ = await StorePublisher(client: store, cacheRoot: options.cacheRoot)
                .publish(&manifest, manifestURL: result.manifestURL)
        }
        if flags.json {
            print(String(decoding: try SummaryJSON.encode(manifest), as: UTF8.self))
        } else {
            SummaryPrinter.print(manifest)
        }
        return Report(manifest: manifest)
    }
}

/// Exit with a message on stderr and a status, without ArgumentParser's usage text.
enum CleanExit {
    static func message(_ text: String, code: Int32) -> ExitCode {
        FileHandle.standardError.write(Data(("tweetcache: " + text + "\n").utf8))
        return ExitCode(code)
    }
}

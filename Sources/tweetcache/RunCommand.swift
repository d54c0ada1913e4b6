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
        func failed(strict: Bool) -> Bool {
            strict && (manifest.summary.failed > 0 || manifest.summary.problems > 0)
        }
    }

    static func run(inputs: [ResultsInput], options: PipelineOptions, flags: FetchOptions) async throws -> Report {
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
        if flags.json {
            print(String(decoding: try SummaryJSON.encode(result.manifest), as: UTF8.self))
        } else {
            SummaryPrinter.print(result.manifest)
        }
        return Report(manifest: result.manifest)
    }
}

/// Exit with a message on stderr and a status, without ArgumentParser's usage text.
enum CleanExit {
    static func message(_ text: String, code: Int32) -> ExitCode {
        FileHandle.standardError.write(Data(("tweetcache: " + text + "\n").utf8))
        return ExitCode(code)
    }
}

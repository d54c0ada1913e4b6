import Foundation
import Catalog
import Pipeline
import Testing

/// A run's progress is the input's: how much of it is behind the run, not how many of
/// the URLs learnt so far are done (full at the end of every batch).
@Suite struct RunProgressTests {
    @Test func aRunEndsWithItsWholeInputDoneAndEveryPostCounted() async throws {
        let origin = try makeOrigin()
        var options = try makeOptions(cache: try temporaryDirectory(), origin: origin)
        options.batchSize = 1
        let progress = RunProgress()
        let run = try await CachePipeline(options: options).run(inputs, progress: progress)
        let size = Data(v1Page.utf8).count + Data(v2Page.utf8).count
        #expect(progress.inputTotal == size)
        #expect(progress.inputDone == size)
        #expect(progress.posts == run.summary.tweets)
        #expect(progress.done == progress.total && progress.total == run.summary.urls)
        // The rate is the downloads' own: their time is part of the run's.
        let downloading = try #require(run.summary.downloadSeconds)
        #expect(downloading > 0 && downloading <= run.summary.seconds)
    }

    @Test func theShareDoneIsTheInputsOnceABatchIsDone() {
        // Mid-run: 30% of 1 GB behind it, its URLs all done for the batch it is on.
        let mid = RunProgress.Snapshot(inputTotal: 1_000_000_000, inputDone: 300_000_000, posts: 60_000, urls: 4_000,
                                       urlsDone: 4_000, failed: 12, images: 300, imagesDone: 250, bytes: 50_000_000,
                                       elapsed: 30)
        #expect(abs(mid.fraction - 0.3) < 1e-9)
        let text = try! #require(mid.text(final: false))
        #expect(text.hasPrefix("30% of "))
        #expect(text.contains("60000 posts") && text.contains("4000/4000 URLs (12 failed)") && text.contains("250/300 images"))
        #expect(text.contains("ETA 1m10s"), "70 s left at the input's pace: \(text)")
        // Within a batch: its share of the input, half done when its URLs are and none
        // of its images yet; across the batch's end the share never goes back.
        let first = RunProgress.Snapshot(inputTotal: 1_000, inputDone: 0, posts: 10, urls: 8, urlsDone: 8, images: 8,
                                         elapsed: 1, batch: .init(endsAt: 700))
        #expect(abs(first.fraction - 0.35) < 1e-9)
        let ending = RunProgress.Snapshot(inputTotal: 1_000, inputDone: 0, posts: 10, urls: 8, urlsDone: 8, images: 8,
                                          imagesDone: 8, elapsed: 1, batch: .init(endsAt: 700))
        let next = RunProgress.Snapshot(inputTotal: 1_000, inputDone: 700, posts: 20, urls: 8, urlsDone: 8, images: 8,
                                        imagesDone: 8, elapsed: 1, batch: .init(endsAt: 1_000, urls: 8, urlsDone: 8, images: 8, imagesDone: 8))
        #expect(abs(ending.fraction - 0.7) < 1e-9 && abs(next.fraction - 0.7) < 1e-9)
        #expect(first.fraction < ending.fraction)
        // Nothing read yet: nothing to say.
        #expect(RunProgress.Snapshot(inputTotal: 5_000, inputDone: 0, posts: 0, urls: 0, urlsDone: 0, elapsed: 1)
            .text(final: false) == nil)
        // The last line says 100% and no ETA.
        let last = RunProgress.Snapshot(inputTotal: 5_000, inputDone: 5_000, posts: 10, urls: 8, urlsDone: 8, elapsed: 2)
        #expect(last.text(final: true)?.hasPrefix("100% of ") == true)
        #expect(last.text(final: true)?.contains("ETA") == false)
    }

    @Test func theSummarySaysTheDownloadRateOverTheDownloadTime() {
        var summary = RunSummary()
        summary.bytesDownloaded = 4_700_000
        summary.seconds = 36.16
        summary.downloadSeconds = 4.7
        let text = Manifest.summaryText(summary: summary, sources: [], failures: [])
        #expect(text.contains("downloaded in 4.70 s ("), "\(text)")
        #expect(text.contains("; the run took 36.16 s"), "\(text)")
        #expect(!text.contains("(130"), "not over the whole run: \(text)")
    }
}

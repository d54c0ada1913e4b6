import BlobStore
import Foundation
import Inspect
import Pipeline
#if canImport(Glibc)
import Glibc
#endif

/// Shows a run's progress on standard error: a redrawn bar on a terminal, a plain
/// line every few seconds otherwise (logs and CI keep a readable record).
final class ProgressDisplay: Sendable {
    let progress: RunProgress
    let enabled: Bool
    let isTTY: Bool
    let started = ContinuousClock.now

    init(progress: RunProgress, enabled: Bool) {
        self.progress = progress
        self.enabled = enabled
        self.isTTY = isatty(STDERR_FILENO) == 1
    }

    func run() async {
        guard enabled else { return }
        let interval: Duration = .milliseconds(Self.intervalMilliseconds(isTTY: isTTY, terminal: 100))
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            draw(final: false)
        }
    }

    /// Draws the last state and ends the line.
    func finish() {
        guard enabled else { return }
        draw(final: true)
    }

    private func draw(final: Bool) {
        let state = RunProgress.Snapshot(progress, elapsed: (ContinuousClock.now - started).secondsDouble)
        guard let text = state.text(final: final) else { return }
        if isTTY {
            let line = "\r\u{1B}[2Kfetch \(Self.bar(state.fraction)) \(text)"
            StandardStreams.error((line + (final ? "\n" : "")))
        } else {
            StandardStreams.error("fetch: \(text)\n")
        }
    }

    /// How often a display draws: `terminal` on a terminal, every 2 s elsewhere, or
    /// what `TWEETCACHE_PROGRESS_MS` says (tests see lines from a short command).
    static func intervalMilliseconds(isTTY: Bool, terminal: Int) -> Int {
        if let text = ProcessInfo.processInfo.environment["TWEETCACHE_PROGRESS_MS"], let ms = Int(text), ms > 0 { return ms }
        return isTTY ? terminal : 2_000
    }

    static func bar(_ fraction: Double, width: Int = 28) -> String {
        let filled = max(0, min(width, Int(fraction * Double(width))))
        return String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    }
}

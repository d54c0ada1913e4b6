import BlobStore
import Foundation
import Pipeline
#if canImport(Glibc)
import Glibc
#endif

/// Shows a maintenance command's ``WorkProgress`` on standard error, as `fetch` shows
/// its run: a redrawn bar on a terminal, a plain line every few seconds otherwise.
/// A command done before the first tick prints nothing, and the bar is cleared before
/// the command prints its report.
final class WorkProgressDisplay: @unchecked Sendable {
    let label: String
    let progress: WorkProgress
    private let isTTY: Bool
    private let timer: DispatchSourceTimer?
    private let started = ContinuousClock.now
    private let lock = NSLock()
    private var drawn = false
    private var finished = false
    private var interval: Duration = .zero

    /// Starts drawing `progress` unless `enabled` is false (`--json`: scripts read
    /// standard output, and nothing else is printed).
    init(_ label: String, progress: WorkProgress, enabled: Bool) {
        self.label = label
        self.progress = progress
        isTTY = isatty(STDERR_FILENO) == 1
        guard enabled else {
            timer = nil
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        let milliseconds = ProgressDisplay.intervalMilliseconds(isTTY: isTTY, terminal: 200)
        self.interval = .milliseconds(milliseconds)
        let interval: DispatchTimeInterval = .milliseconds(milliseconds)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        self.timer = timer
        timer.setEventHandler { [weak self] in self?.draw() }
        timer.resume()
    }

    deinit { timer?.cancel() }

    /// Stops drawing: the bar is cleared on a terminal; elsewhere a last line is
    /// written when the work lasted an interval (a log of a long command ends with
    /// where it got to; a quick one prints nothing).
    func finish() {
        guard let timer else { return }
        timer.cancel()
        let lasted = ContinuousClock.now - started >= interval
        lock.withLock {
            guard !finished else { return }
            finished = true
            if isTTY {
                if drawn { StandardStreams.error("\r\u{1B}[2K") }
            } else if drawn || lasted {
                StandardStreams.error("\(label): \(WorkProgress.text(progress.snapshot, unit: progress.unit))\n")
            }
        }
    }

    private func draw() {
        let state = progress.snapshot
        var text = WorkProgress.text(state, unit: progress.unit)
        let elapsed = (ContinuousClock.now - started).secondsDouble
        if state.total > 0, state.done > 0, state.done < state.total, state.phase == nil {
            let fraction = Double(state.done) / Double(state.total)
            text += "  ETA \(RunProgress.Snapshot.duration(elapsed / fraction - elapsed))"
        } else {
            text += "  \(RunProgress.Snapshot.duration(elapsed))"
        }
        lock.withLock {
            guard !finished else { return }
            drawn = true
            if isTTY {
                let fraction = state.total > 0 ? Double(min(state.done, state.total)) / Double(state.total) : 0
                StandardStreams.error("\r\u{1B}[2K\(label) \(ProgressDisplay.bar(fraction)) \(text)")
            } else {
                StandardStreams.error("\(label): \(text)\n")
            }
        }
    }
}

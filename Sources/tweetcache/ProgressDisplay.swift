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
        let interval: Duration = isTTY ? .milliseconds(100) : .seconds(2)
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            draw(final: false)
        }
    }

    /// Draws the last state and ends the line.
    func finish() {
        guard enabled, progress.total > 0 else { return }
        draw(final: true)
    }

    private func draw(final: Bool) {
        if progress.deriveTotal > 0 {
            let (done, total) = (progress.deriveDone, progress.deriveTotal)
            let tail = "\(done)/\(total) images (thumbnails, tiles)"
            if isTTY {
                let line = "\r\u{1B}[2Kderive \(Self.bar(Double(done) / Double(total))) \(tail)"
                FileHandle.standardError.write(Data((line + (final ? "\n" : "")).utf8))
            } else {
                FileHandle.standardError.write(Data("derive: \(tail)\n".utf8))
            }
            return
        }
        let total = progress.total, done = progress.done, failed = progress.failed
        guard total > 0 else { return }
        let bytes = progress.bytes.value
        let elapsed = max((ContinuousClock.now - started).secondsDouble, 0.001)
        let rate = Double(bytes) / elapsed
        let fraction = Double(done) / Double(total)
        var eta = ""
        if done > 0, done < total {
            let remaining = elapsed / fraction - elapsed
            eta = " ETA \(Self.duration(remaining))"
        }
        let counts = "\(done)/\(total)" + (failed > 0 ? " (\(failed) failed)" : "")
        let tail = "\(counts)  \(ByteCount.format(bytes))  \(ByteCount.format(Int(rate)))/s\(eta)"
        if isTTY {
            let line = "\r\u{1B}[2Kfetch \(Self.bar(fraction)) \(tail)"
            FileHandle.standardError.write(Data((line + (final ? "\n" : "")).utf8))
        } else {
            FileHandle.standardError.write(Data("fetch: \(tail)\n".utf8))
        }
    }

    static func bar(_ fraction: Double, width: Int = 28) -> String {
        let filled = max(0, min(width, Int(fraction * Double(width))))
        return String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    }

    static func duration(_ s: Double) -> String {
        guard s.isFinite else { return "?" }
        let t = Int(s.rounded())
        return t >= 60 ? "\(t / 60)m\(t % 60)s" : "\(t)s"
    }
}

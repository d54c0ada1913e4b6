import Catalog
import BlobStore
import Foundation

extension Manifest {
    /// The run's summary for people, as `fetch`, `search` and `demo` print it:
    /// counts, bytes and rate, what was derived, failures by reason (the first
    /// ten with their URLs), skipped parts of the input, and where the manifest
    /// is (relative to `directory` when under it).
    public func summaryText(relativeTo directory: String = FileManager.default.currentDirectoryPath) -> String {
        Self.summaryText(summary: summary, sources: sources, failures: failures, relativeTo: directory)
    }

    /// The same from a run's parts, without its posts.
    public static func summaryText(
        summary s: RunSummary, sources: [Source], failures: [Failure],
        relativeTo directory: String = FileManager.default.currentDirectoryPath
    ) -> String {
        var lines: [String] = []
        let files = sources.count == 1 ? "1 file" : "\(sources.count) files"
        lines.append(Self.row("tweets", "\(s.tweets)" + (s.includedTweets > 0 ? " (+\(s.includedTweets) quoted/retweeted)" : "") + " from \(files)"))
        lines.append(Self.row("urls", "\(s.urls) unique: \(s.cached) cached, \(s.downloaded) downloaded, \(s.failed) failed"))
        // The rate is over the time downloads were in flight (older manifests: the run).
        let downloading = s.downloadSeconds ?? s.seconds
        let rate = downloading > 0 ? " (\(ByteCount.format(Int(Double(s.bytesDownloaded) / downloading)))/s)" : ""
        let whole = s.downloadSeconds == nil ? "" : "; the run took \(String(format: "%.2f", s.seconds)) s"
        lines.append(Self.row("bytes", "\(ByteCount.format(s.bytesDownloaded)) downloaded in \(String(format: "%.2f", downloading)) s\(rate)\(whole)"))
        if s.derived > 0 || s.deriveFailed > 0 {
            lines.append(Self.row("derived", "thumbnails and tiles for \(s.derived) images" + (s.deriveFailed > 0 ? ", \(s.deriveFailed) could not be decoded" : "")))
        }
        if s.deduplicated > 0 {
            lines.append(Self.row("dedup", "\(s.deduplicated) downloads were already stored under another URL"))
        }
        if !s.failuresByReason.isEmpty {
            let reasons = s.failuresByReason.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
                .map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
            lines.append(Self.row("failures", reasons))
            for f in failures.prefix(10) { lines.append("  \(f.role) \(f.url)\n    \(f.error.message)") }
            if failures.count > 10 { lines.append("  … \(failures.count - 10) more in the manifest") }
        }
        if let store = s.store {
            var text = "\(store.uploaded) objects uploaded (\(ByteCount.format(store.bytesUploaded))), "
                + "\(store.alreadyStored) already there, \(store.failed) failed; \(store.location)"
            text += store.manifestKey.map { "/\($0)" } ?? ": manifest not uploaded, run again to finish"
            lines.append(Self.row("store", text))
            let failed = failures.filter { $0.role == "store" }
            for f in failed.prefix(5) { lines.append("  \(f.url)\n    \(f.error.message)") }
            if failed.count > 5 { lines.append("  … \(failed.count - 5) more in the manifest") }
        }
        let problems = sources.flatMap(\.problems)
        if !problems.isEmpty {
            let count = max(problems.count, s.problems)
            lines.append(Self.row("problems", "\(count) parts of the input were skipped"))
            for p in problems.prefix(10) { lines.append("  \(p.source): \(p.location): \(p.message)") }
            if count > 10 { lines.append("  … \(count - 10) more in the manifest") }
        }
        if let path = s.manifestPath {
            let prefix = directory.hasSuffix("/") ? directory : directory + "/"
            lines.append(Self.row("manifest", path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func row(_ label: String, _ value: String) -> String {
        label.padding(toLength: 10, withPad: " ", startingAt: 0) + value
    }
}

import Foundation
import Inspect
import Pipeline

/// The human summary of a run, on standard output.
enum SummaryPrinter {
    static func print(_ m: Manifest) {
        let s = m.summary
        var lines: [String] = []
        let files = m.sources.count == 1 ? "1 file" : "\(m.sources.count) files"
        lines.append(row("tweets", "\(s.tweets)" + (s.includedTweets > 0 ? " (+\(s.includedTweets) quoted/retweeted)" : "") + " from \(files)"))
        lines.append(row("urls", "\(s.urls) unique: \(s.cached) cached, \(s.downloaded) downloaded, \(s.failed) failed"))
        let rate = s.seconds > 0 ? " (\(ByteCount.format(Int(Double(s.bytesDownloaded) / s.seconds)))/s)" : ""
        lines.append(row("bytes", "\(ByteCount.format(s.bytesDownloaded)) downloaded in \(String(format: "%.2f", s.seconds)) s\(rate)"))
        if s.derived > 0 || s.deriveFailed > 0 {
            lines.append(row("derived", "thumbnails and tiles for \(s.derived) images" + (s.deriveFailed > 0 ? ", \(s.deriveFailed) could not be decoded" : "")))
        }
        if s.deduplicated > 0 {
            lines.append(row("dedup", "\(s.deduplicated) downloads were already stored under another URL"))
        }
        if !s.failuresByReason.isEmpty {
            let reasons = s.failuresByReason.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
                .map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
            lines.append(row("failures", reasons))
            for f in m.failures.prefix(10) { lines.append("  \(f.role) \(f.url)\n    \(f.error.message)") }
            if m.failures.count > 10 { lines.append("  … \(m.failures.count - 10) more in the manifest") }
        }
        let problems = m.sources.flatMap(\.problems)
        if !problems.isEmpty {
            lines.append(row("problems", "\(problems.count) parts of the input were skipped"))
            for p in problems.prefix(10) { lines.append("  \(p.source): \(p.location): \(p.message)") }
            if problems.count > 10 { lines.append("  … \(problems.count - 10) more in the manifest") }
        }
        if let path = s.manifestPath { lines.append(row("manifest", relative(path))) }
        Swift.print(lines.joined(separator: "\n"))
    }

    private static func row(_ label: String, _ value: String) -> String {
        label.padding(toLength: 10, withPad: " ", startingAt: 0) + value
    }

    private static func relative(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(cwd) ? String(path.dropFirst(cwd.count)) : path
    }
}

/// The `--json` summary: what scripts need without reading the whole manifest.
enum SummaryJSON {
    struct Payload: Encodable {
        var summary: RunSummary
        var failures: [Manifest.Failure]
        var problems: [Manifest.Problem]
    }

    static func encode(_ m: Manifest) throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try e.encode(Payload(summary: m.summary, failures: m.failures, problems: m.sources.flatMap(\.problems)))
    }
}

import Foundation
import Testing
import TestSupport

/// Progress on standard error as a log or CI sees it (not a terminal: plain lines),
/// drawn every millisecond (`TWEETCACHE_PROGRESS_MS`) so short commands show some.
@Suite struct ProgressLinesTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }
    let often = ["TWEETCACHE_PROGRESS_MS": "1"]

    @Test func fetchTellsHowMuchOfTheWholeRunIsDone() async throws {
        let server = try makeServer()
        let (dir, page) = try scratchWithPage("tc-progress")
        let out = try await CommandRunner.run(
            bin, ["fetch", page.path, "--cache", dir.appendingPathComponent("c").path, "--mirror", "pbs.twimg.com=\(server.baseURL)"],
            environment: often)
        #expect(out.status == 0, "\(out.stderr)")
        let lines = out.stderr.split(separator: "\n").filter { $0.hasPrefix("fetch: ") }
        let last = try #require(lines.last, "\(out.stderr)")
        #expect(last.contains("100% of \(cliPage.utf8.count) B") || last.contains("100% of "), "\(last)")
        #expect(last.contains("2 posts") && last.contains("4/4 URLs (1 failed)"), "\(last)")
        #expect(!out.stderr.contains("\u{1B}["))
        // The summary's rate is over the time downloads took.
        #expect(out.stdout.contains("; the run took "), "\(out.stdout)")
    }

    @Test func maintenanceCommandsShowProgress() async throws {
        let server = try makeServer()
        let (dir, page) = try scratchWithPage("tc-progress-maint")
        let cache = dir.appendingPathComponent("c").path
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("bucket"), withIntermediateDirectories: true)
        let store = "file://" + dir.appendingPathComponent("bucket").path
        let fetched = try await CommandRunner.run(
            bin, ["fetch", page.path, "--cache", cache, "--quiet", "--store", store, "--mirror", "pbs.twimg.com=\(server.baseURL)"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let commands: [(String, [String])] = [
            ("reindex", ["reindex", "--cache", cache]),
            ("verify", ["verify", "--cache", cache]),
            ("dupes", ["dupes", "--cache", cache]),
            ("export", ["export", "--cache", cache, "--out", dir.appendingPathComponent("x").path]),
            ("sync", ["sync", "--cache", dir.appendingPathComponent("second").path, "--store", store]),
        ]
        for (label, arguments) in commands {
            let out = try await CommandRunner.run(bin, arguments, environment: often)
            #expect(out.status == 0, "\(label): \(out.stderr)")
            let lines = out.stderr.split(separator: "\n").filter { $0.hasPrefix("\(label): ") }
            #expect(!lines.isEmpty, "\(label) showed no progress: \(out.stderr)")
            // With --json nothing but the JSON is printed.
            let quiet = try await CommandRunner.run(bin, arguments + ["--json"], environment: often)
            #expect(!quiet.stderr.contains("\(label): "), "\(label) --json: \(quiet.stderr)")
        }
    }
}

import ArgumentParser
import Foundation
import Inspect

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Re-hash every blob and check the index and derived files against the disk.",
        discussion: """
            --repair moves corrupt blobs to <cache>/quarantine/, drops index rows whose blob is \
            gone (the next fetch downloads them again) and makes missing derived files again. \
            Exit status 1 when problems remain.
            """)

    @Flag(name: .long, help: "Fix what can be fixed.")
    var repair = false

    @Option(name: .long, help: "Blobs hashed at once (default: one per core).")
    var jobs: Int?

    @OptionGroup var options: InspectOptions

    func run() throws {
        let snapshot = try options.snapshot()
        var verifier = CacheVerifier(snapshot: snapshot)
        if let jobs { verifier.lanes = max(1, jobs) }
        let report: CacheVerifier.Report
        do { report = try verifier.run(repair: repair) } catch { throw InspectFailure.exit(error) }
        if options.json { print(try InspectJSON.string(report)) } else {
            emit(report.text(style: options.style))
            if !repair, report.remaining > 0 { emit("run `tweetcache verify --repair` to repair what can be\n") }
        }
        if report.remaining > 0 { throw ExitCode(1) }
    }
}

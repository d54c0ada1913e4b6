import ArgumentParser
import BlobStore
import Foundation
import Inspect
import Pipeline

struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Re-hash every blob and check the index and derived files against the disk.",
        discussion: """
            --repair moves corrupt blobs to <cache>/quarantine/, drops index rows whose blob is \
            gone (the next fetch downloads them again) and makes missing derived files again. \
            Exit status 1 when problems remain. With --store, the bucket is verified instead: \
            every original re-hashed against its name, every pack and each of its tiles checked, \
            every thumbnail against the hash recorded when it was made, and every object the \
            bucket's manifests name looked for; --repair puts back what this cache holds a \
            verified copy of and deletes the rest of what fails (a machine holding the right \
            bytes puts them back on its next fetch).
            """)

    @Flag(name: .long, help: "Fix what can be fixed.")
    var repair = false

    @Option(name: .long, help: "Blobs hashed at once (default: one per core).")
    var jobs: Int?

    @OptionGroup var options: InspectOptions

    @OptionGroup var storage: StoreOptions

    func run() async throws {
        if let shared = try await storage.open(explicit: repair) {
            defer { shared.shutdown() }
            var maintenance = StoreMaintenance(storage: shared)
            if let jobs { maintenance.concurrency = max(1, jobs) }
            let report: StoreMaintenance.VerifyReport
            do { report = try await maintenance.verify(repair: repair, localRoot: options.cacheURL) } catch {
                throw FailureExit.message(error.description, code: 2)
            }
            if options.json { print(try InspectJSON.string(report)) } else { emit(report.text) }
            if report.remaining > 0 { throw ExitCode(1) }
            return
        }
        let snapshot = try options.snapshot()
        var verifier = CacheVerifier(snapshot: snapshot)
        if let jobs { verifier.lanes = max(1, jobs) }
        let report: CacheVerifier.Report
        let progress = WorkProgress(unit: .items("blobs"))
        let display = WorkProgressDisplay("verify", progress: progress, enabled: !options.json)
        do { report = try await verifier.run(repair: repair, progress: progress) } catch {
            display.finish()
            throw InspectFailure.exit(error)
        }
        display.finish()
        if options.json { print(try InspectJSON.string(report)) } else {
            emit(report.text(style: options.style))
            if !repair, report.remaining > 0 { emit("run `tweetcache verify --repair` to repair what can be\n") }
        }
        if report.remaining > 0 { throw ExitCode(1) }
    }
}

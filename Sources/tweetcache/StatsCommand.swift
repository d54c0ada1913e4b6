import ArgumentParser
import Foundation
import Inspect
import Pipeline

struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Tweets, images by kind, bytes stored and saved, derived bytes, failures.")

    @OptionGroup var options: InspectOptions

    @OptionGroup var storage: StoreOptions

    func run() async throws {
        if let shared = try await storage.open() {
            defer { shared.shutdown() }
            let stats: StoreMaintenance.Stats
            do { stats = try await StoreMaintenance(storage: shared).stats() } catch {
                throw FailureExit.message(error.description, code: 2)
            }
            if options.json { print(try InspectJSON.string(stats)) } else { emit(stats.text) }
            return
        }
        let snapshot = try options.snapshot()
        let stats: CacheStats
        do { stats = try CacheStats(snapshot: snapshot) } catch { throw InspectFailure.exit(error) }
        if options.json { print(try InspectJSON.string(stats)) } else { emit(stats.text(style: options.style)) }
    }
}

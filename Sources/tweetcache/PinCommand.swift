import ArgumentParser
import Catalog
import Foundation
import Inspect

/// `tweetcache pin QUERY...`: collections `gc --max-size` never evicts; with no
/// query, the pins there are.
struct PinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Keep a collection's media whatever gc's budget: the posts a query brought in (no query: list the pins).")

    @Argument(help: ArgumentHelp("A query as searched: #tag, @user or an API query.", valueName: "QUERY"))
    var queries: [String] = []

    @OptionGroup var options: InspectOptions

    func run() throws {
        let root = options.cacheURL.standardizedFileURL
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let pins = CollectionPins(cacheRoot: root)
        do {
            for query in queries {
                guard !query.isEmpty, query.utf8.count <= 1024 else { throw ValidationError("not a query: \(query.prefix(80).debugDescription)") }
                try pins.pin(query)
            }
            let all = try pins.read()
            if options.json {
                print(try InspectJSON.string(all.map(\.query)))
            } else {
                emit(all.isEmpty ? "no collection is pinned\n" : all.map { "pinned  \($0.query)\n" }.joined())
            }
        } catch let error as CatalogError {
            throw FailureExit.message(error.description, code: 2)
        }
    }
}

/// `tweetcache unpin QUERY...`: the collection's media may be evicted again.
struct UnpinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpin", abstract: "Let gc's budget evict a pinned collection's media again.")

    @Argument(help: ArgumentHelp("A pinned query.", valueName: "QUERY"))
    var queries: [String]

    @OptionGroup var options: InspectOptions

    func run() throws {
        let pins = CollectionPins(cacheRoot: options.cacheURL.standardizedFileURL)
        var missing: [String] = []
        do {
            for query in queries where !(try pins.unpin(query)) { missing.append(query) }
        } catch {
            throw FailureExit.message(error.description, code: 2)
        }
        for query in missing { StandardStreams.error("tweetcache: \(query) was not pinned\n") }
        if !missing.isEmpty { throw ExitCode(1) }
    }
}

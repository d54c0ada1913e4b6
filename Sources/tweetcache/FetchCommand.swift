import ArgumentParser
import Foundation
import Pipeline

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Cache the avatars and media of tweets in search results.",
        discussion: """
            RESULTS are Twitter/X API responses saved as served: v1.1 search/tweets, v2 \
            tweets/search/recent (with includes), Premium search, timelines, single tweets, \
            or JSON Lines of any of these (as twarc writes). Use - for standard input. \
            The format is detected from the content.
            """)

    @Argument(help: ArgumentHelp("Search-result files, or - for standard input.", valueName: "RESULTS"))
    var results: [String]

    @OptionGroup var options: FetchOptions

    func run() async throws {
        var inputs: [ResultsInput] = []
        for path in results {
            do { inputs.append(try ResultsInput.read(path)) } catch {
                throw ValidationError(error.description)
            }
        }
        let report = try await RunCommand.run(inputs: inputs, options: try options.pipelineOptions(), flags: options)
        if report.failed(strict: options.strict) { throw ExitCode(1) }
    }
}

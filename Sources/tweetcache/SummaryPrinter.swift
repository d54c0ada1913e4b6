import Catalog
import Foundation
import Inspect
import Pipeline

/// The human summary of a run, on standard output (the library formats it).
enum SummaryPrinter {
    static func print(_ r: RunCommand.Report) {
        Swift.print(Manifest.summaryText(summary: r.summary, sources: r.sources, failures: r.failures), terminator: "")
    }
}

/// The `--json` summary: what scripts need without reading the whole manifest.
enum SummaryJSON {
    struct Payload: Encodable {
        var summary: RunSummary
        var failures: [Manifest.Failure]
        var problems: [Manifest.Problem]
    }

    static func encode(_ m: RunCommand.Report) throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try e.encode(Payload(summary: m.summary, failures: m.failures, problems: m.configurationProblems + m.sources.flatMap(\.problems)))
    }
}

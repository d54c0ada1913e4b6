import ArgumentParser
import Foundation
import Inspect
#if canImport(Glibc)
import Glibc
#endif

/// Options every inspect command takes: which cache, JSON or text, colour.
struct InspectOptions: ParsableArguments {
    @OptionGroup var location: CacheOption

    @Flag(name: .long, help: "Print JSON for scripts instead of text.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Colour: auto (a terminal, unless NO_COLOR is set), always, never.", valueName: "WHEN"))
    var color = ColorMode.auto

    var cacheURL: URL { location.url }

    var style: Style {
        Style(enabled: color.enabled(
            isTTY: isatty(STDOUT_FILENO) == 1, environment: ProcessInfo.processInfo.environment))
    }

    func snapshot() throws -> CacheSnapshot {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: cacheURL.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FailureExit.message("no cache at \(cacheURL.path) (use --cache DIR or $TWEETCACHE_CACHE)", code: 2)
        }
        do { return try CacheSnapshot(root: cacheURL) } catch { throw InspectFailure.exit(error) }
    }
}

/// Inspect errors as exit statuses: 1 for "not found" and "ambiguous", 2 otherwise.
enum InspectFailure {
    static func exit(_ error: InspectError) -> ExitCode {
        switch error {
        case .notFound, .ambiguous: FailureExit.message(error.description, code: 1)
        default: FailureExit.message(error.description, code: 2)
        }
    }
}

/// Writes text to standard output without an extra newline.
func emit(_ text: String) {
    StandardStreams.output(text)
}

/// `--now` (hidden): the clock relative dates are computed from, for tests.
func parseNow(_ text: String?) throws -> Date {
    guard let text else { return Date() }
    let f = ISO8601DateFormatter()
    guard let date = f.date(from: text) else { throw ValidationError("--now: not an ISO 8601 date: \(text)") }
    return date
}

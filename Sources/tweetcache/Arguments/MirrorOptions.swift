import ArgumentParser
import MediaFetch

/// `--mirror HOST=BASEURL` (repeatable), read into a ``MirrorMap`` once: `fetch`,
/// `search`, `demo` and `serve`'s live searches take the same option.
struct MirrorOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Fetch HOST's URLs (HOST or HOST:PORT) from BASEURL instead; the manifest keeps the original URL. Repeatable.",
        valueName: "HOST=BASEURL"))
    var mirror: [String] = []

    func validate() throws {
        do { _ = try MirrorMap(specs: mirror) } catch { throw ValidationError("--mirror: \(error.description)") }
    }

    /// The mirrors, with `extra` ones after them (the demo's origin).
    func map(extra: [String] = []) throws -> MirrorMap {
        do { return try MirrorMap(specs: mirror + extra) } catch {
            throw ValidationError("--mirror: \(error.description)")
        }
    }
}

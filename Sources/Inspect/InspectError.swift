/// Why an inspect command could not answer; the CLI prints `description` and exits 2
/// (or 1 for "not found" and "ambiguous", which scripts may want to tell apart).
public enum InspectError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The cache directory or its index could not be opened.
    case cache(String)
    /// Nothing in the cache matches what was asked for.
    case notFound(String)
    /// A hash prefix matches several images; the candidates are listed.
    case ambiguous(prefix: String, candidates: [String])
    /// An argument that cannot be used as given.
    case invalid(String)
    /// Writing output files (export, quarantine) failed.
    case io(String)

    public var description: String {
        switch self {
        case let .cache(m): return m
        case let .notFound(m): return m
        case let .ambiguous(prefix, candidates):
            return "'\(prefix)' matches \(candidates.count) images:\n" + candidates.map { "  \($0)" }.joined(separator: "\n")
        case let .invalid(m): return m
        case let .io(m): return m
        }
    }
}

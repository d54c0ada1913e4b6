/// Errors that stop a run before or after the per-item work (per-item problems are
/// recorded in the manifest instead and never stop a run).
public enum PipelineError: Error, Sendable, CustomStringConvertible {
    case unreadableInput(String, String)
    case cache(String)
    case manifest(String)
    case fetcher(String)

    public var description: String {
        switch self {
        case let .unreadableInput(path, why): "cannot read \(path): \(why)"
        case let .cache(why): "cache error: \(why)"
        case let .manifest(why): "cannot write the manifest: \(why)"
        case let .fetcher(why): why
        }
    }
}

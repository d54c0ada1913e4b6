/// When to colour output: `auto` colours a terminal unless `NO_COLOR` is set
/// (https://no-color.org), so pipes and logs get plain text.
public enum ColorMode: String, Sendable, CaseIterable {
    case auto, always, never

    /// Whether to emit colour escapes, given whether stdout is a TTY and the environment.
    public func enabled(isTTY: Bool, environment: [String: String]) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
            return isTTY
        }
    }
}

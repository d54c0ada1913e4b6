/// ANSI SGR styling that turns into nothing when colour is off, so formatting code is
/// written once for both.
public struct Style: Sendable {
    public let enabled: Bool

    public init(enabled: Bool) { self.enabled = enabled }

    /// The colours of the original app's tweet cells, as 256-colour indexes: one per
    /// entity kind so hashtags, mentions and links are told apart at a glance.
    public enum Colour: Int, Sendable {
        case hashtag = 33   // blue
        case mention = 35   // magenta
        case url = 36       // cyan
        case name = 1       // bold
        case dim = 2
        case warning = 31   // red
        case ok = 32        // green
    }

    public func paint(_ text: some StringProtocol, _ colour: Colour) -> String {
        guard enabled, !text.isEmpty else { return String(text) }
        return "\u{1B}[\(colour.rawValue)m\(text)\u{1B}[0m"
    }
}

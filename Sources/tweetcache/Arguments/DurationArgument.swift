import ArgumentParser
import MediaFetch

/// A time as typed (`500ms`, `90s`, `15m`, `30d`, `2w`, or seconds), parsed once
/// by the one parser (``DurationText``); what an option allows at most is checked
/// by its command (a wait of more than a week is refused, an age is not).
struct DurationArgument: ExpressibleByArgument, Equatable, Sendable {
    var duration: Duration
    /// As typed, for the help's default.
    private var text: String

    init?(argument: String) {
        guard let duration = DurationText.parse(argument) else { return nil }
        self.duration = duration
        text = argument
    }

    var defaultValueDescription: String { text }

    var seconds: Double { Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18 }
}

import Foundation

/// Durations as people type them on a command line: `500ms`, `90s`, `15m`, `12h`,
/// `30d`, `2w`, or plain seconds; fractions allowed (`1.5h`), signs and exponents
/// not. One parser for every option that takes a time (`--max-wait`, `--timeout`,
/// `gc --older-than`): what each option allows at most is that option's rule,
/// given as `limit`, not the parser's.
public enum DurationText {
    /// Seconds per unit, longest suffix first (so `ms` is not read as `m`).
    static let units: [(suffix: String, seconds: Double)] = [
        ("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400), ("w", 604_800),
    ]

    /// The duration `text` says, or nil when it says none or more than `limit`.
    public static func parse(_ text: String, limit: Duration? = nil) -> Duration? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        var number = t
        var factor = 1.0
        if let unit = units.first(where: { t.hasSuffix($0.suffix) }) {
            number = String(t.dropLast(unit.suffix.count))
            factor = unit.seconds
        }
        guard !number.isEmpty, number.utf8.allSatisfy({ (0x30...0x39).contains($0) || $0 == UInt8(ascii: ".") }),
              let value = Double(number), value.isFinite, value >= 0
        else { return nil }
        let seconds = value * factor
        // Past a century is a typo, not a time; it would also overflow milliseconds.
        guard seconds <= 100 * 365 * 86_400 else { return nil }
        let duration = Duration.milliseconds(Int((seconds * 1000).rounded()))
        if let limit, duration > limit { return nil }
        return duration
    }

    /// The longest a wait on another system may be asked to last (`--max-wait`).
    public static let longestWait = Duration.seconds(7 * 86_400)
}

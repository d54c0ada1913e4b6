import Foundation

/// Tweet ages exactly as the original app showed them: `53m`, `1h 53m`, `7h 53m`, `4d`.
///
/// The rules are shared with the browser viewer (which implements them in JS), so
/// both must change together: elapsed whole seconds, floored, a future date counts as
/// now; under an hour minutes (`0m` for the first minute), under a day hours and
/// minutes (`2h 0m` on the hour), then days however many (two years ago is `730d`).
public enum RelativeTime {
    public static func string(from date: Date, now: Date) -> String {
        let interval = now.timeIntervalSince(date)
        let elapsed = interval.isFinite && interval > 0 ? Int(min(interval, Double(Int.max / 2)).rounded(.down)) : 0
        switch elapsed {
        case ..<3600: return "\(elapsed / 60)m"
        case ..<86_400: return "\(elapsed / 3600)h \(elapsed % 3600 / 60)m"
        default: return "\(elapsed / 86_400)d"
        }
    }
}

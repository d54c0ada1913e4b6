import Foundation

/// Tweet ages the way the original app showed them: `53s`, `53m`, `1h 53m`, `4d`, `2y`.
///
/// The rules are shared with the browser viewer (which implements them in JS), so
/// both must change together: elapsed whole seconds, floored, a future date counts as
/// now; under a minute seconds, under an hour minutes, under a day hours and minutes
/// (minutes left out when zero), under 365 days days, then years of 365 days.
public enum RelativeTime {
    public static func string(from date: Date, now: Date) -> String {
        let interval = now.timeIntervalSince(date)
        let elapsed = interval.isFinite && interval > 0 ? Int(min(interval, Double(Int.max / 2)).rounded(.down)) : 0
        switch elapsed {
        case ..<60: return "\(elapsed)s"
        case ..<3600: return "\(elapsed / 60)m"
        case ..<86_400:
            let hours = elapsed / 3600, minutes = elapsed % 3600 / 60
            return minutes == 0 ? "\(hours)h" : "\(hours)h \(minutes)m"
        default:
            let days = elapsed / 86_400
            return days < 365 ? "\(days)d" : "\(days / 365)y"
        }
    }
}

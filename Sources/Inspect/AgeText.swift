import Foundation

/// Durations for `--older-than`: `30d`, `12h`, `90m`, `45s`, `2w`.
public enum AgeText {
    public static func parse(_ text: String) -> Double? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("w", 604_800), ("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)]
        for (suffix, factor) in units where t.hasSuffix(suffix) {
            guard let v = Double(t.dropLast()), v >= 0, v.isFinite else { return nil }
            return v * factor
        }
        return Double(t).flatMap { $0 >= 0 && $0.isFinite ? $0 : nil }
    }
}

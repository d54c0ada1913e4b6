import Foundation

/// Durations as typed on a command line: `15m`, `90s`, `1h`, `500ms`, or plain seconds.
public enum DurationText {
    public static func parse(_ text: String) -> Duration? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        for (suffix, factor) in units where t.hasSuffix(suffix) {
            return seconds(String(t.dropLast(suffix.count)), factor)
        }
        return seconds(t, 1)
    }

    private static func seconds(_ number: String, _ factor: Double) -> Duration? {
        guard !number.isEmpty, number.utf8.allSatisfy({ (0x30...0x39).contains($0) || $0 == UInt8(ascii: ".") }),
              let value = Double(number), value.isFinite, value >= 0, value * factor <= 7 * 86_400
        else { return nil }
        return .milliseconds(Int((value * factor * 1000).rounded()))
    }
}

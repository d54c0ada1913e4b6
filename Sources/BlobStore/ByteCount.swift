internal import Foundation

/// Byte sizes for people (`1.5 MB`, binary multiples, as the fetch summary prints)
/// and parsed from them (`2GB`, `500KB`, `1048576`): the one parser every command
/// uses (`fetch --max-size`, `gc --max-size`), so they agree on what they accept
/// (never a negative size).
public enum ByteCount {
    public static func format(_ n: Int) -> String {
        let d = Double(n)
        if n >= 1 << 30 { return String(format: "%.2f GB", d / 1_073_741_824) }
        if n >= 1 << 20 { return String(format: "%.1f MB", d / 1_048_576) }
        if n >= 1 << 10 { return String(format: "%.1f KB", d / 1024) }
        return "\(n) B"
    }

    public static func parse(_ text: String) -> Int? {
        let t = text.trimmingCharacters(in: .whitespaces).uppercased()
        let units: [(String, Double)] = [("GIB", 1_073_741_824), ("MIB", 1_048_576), ("KIB", 1024), ("GB", 1_073_741_824),
                                         ("MB", 1_048_576), ("KB", 1024), ("G", 1_073_741_824), ("M", 1_048_576),
                                         ("K", 1024), ("B", 1)]
        for (suffix, factor) in units where t.hasSuffix(suffix) {
            guard let v = Double(t.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)), v >= 0 else { return nil }
            let bytes = v * factor
            return bytes < Double(Int.max) ? Int(bytes) : nil
        }
        return Int(t).flatMap { $0 >= 0 ? $0 : nil }
    }
}

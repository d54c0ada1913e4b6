import Foundation

/// The `--json` form of every inspect command: pretty, sorted keys, ISO 8601 dates,
/// slashes unescaped, the same conventions as the manifest.
public enum InspectJSON {
    public static func string(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

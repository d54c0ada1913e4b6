import Foundation

/// Something in an input that could not be used, pinned to where it is.
///
/// Parsing never stops at the first bad item: a results file from a crawl can hold
/// thousands of pages, and one truncated line or odd tweet must cost only itself.
/// Each problem names the file, the position and what was wrong, so a user can look.
public struct ParseProblem: Error, Sendable, Codable, Hashable, CustomStringConvertible, LocalizedError {
    /// The file name, or `-` for standard input.
    public let source: String
    /// Where in the source: `document`, `line 12`, `statuses[3]`, `line 4, data[7]`,
    /// `byte 4711`.
    public let location: String
    /// What was wrong, in one line.
    public let message: String

    public init(source: String, location: String, message: String) {
        self.source = source
        self.location = location
        self.message = message
    }

    public var description: String { "\(source): \(location): \(message)" }
    public var errorDescription: String? { description }
}

import Foundation

/// Reads saved Twitter/X API responses, whatever shape they were saved in.
///
/// Accepts v1.1 search pages, timelines (arrays) and single tweets, premium search
/// pages, v2 search pages and single tweets, and JSON Lines holding any mix of these,
/// one per line, as twarc writes them. The shape is detected from the content.
///
/// Parsing never throws: input files are untrusted and often huge, so each unusable
/// part (a bad line, a malformed tweet, a page the API answered with an error) becomes a
/// ``ParseProblem`` naming its position, and everything else is kept.
public enum ResultsParser {
    /// Parses one document.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - source: how problems name the input, usually the file name or `-` for stdin.
    public static func parse(_ data: Data, source: String) -> ParsedResults {
        let reader = DocumentReader(source: source)
        guard data.withUnsafeBytes({ $0.contains { !isWhitespace($0) } }) else {
            return ParsedResults(pages: [], problems: [reader.problem("document", "the input is empty")])
        }
        if let document = try? reader.decoder.decode(WireDocument.self, from: data) {
            let (page, problems) = reader.build(document, locationPrefix: "")
            return ParsedResults(pages: page.map { [$0] } ?? [], problems: problems)
        }
        // Not one JSON value: JSON Lines, or broken JSON.
        if let lines = reader.parseLines(data) {
            return lines
        }
        return ParsedResults(pages: [], problems: [reader.syntaxProblem(in: data, location: nil)])
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

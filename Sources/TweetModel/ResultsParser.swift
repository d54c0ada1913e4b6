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
        guard data.contains(where: { !isWhitespace($0) }) else {
            return ParsedResults(pages: [], problems: [reader.problem("document", "the input is empty")])
        }
        if let document = try? reader.decoder.decode(WireDocument.self, from: data) {
            let (page, problems) = reader.build(document, locationPrefix: "")
            return ParsedResults(pages: page.map { [$0] } ?? [], problems: problems)
        }
        // Not one JSON value; JSON Lines if at least one line is a response we know.
        if let lines = reader.parseLines(data) {
            return lines
        }
        return ParsedResults(pages: [], problems: [reader.syntaxProblem(in: data, location: nil)])
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

/// The per-call state of ``ResultsParser``: the source name and one reusable decoder.
private struct DocumentReader {
    let source: String
    let decoder = JSONDecoder()

    func problem(_ location: String, _ message: String) -> ParseProblem {
        ParseProblem(source: source, location: location, message: message)
    }

    // MARK: JSON Lines

    func parseLines(_ data: Data) -> ParsedResults? {
        var pages: [ResultsPage] = []
        var problems: [ParseProblem] = []
        var recognised = 0
        var lineNumber = 0
        var lineStart = data.startIndex
        while lineStart < data.endIndex {
            lineNumber += 1
            let newline = data[lineStart...].firstIndex(of: 0x0A) ?? data.endIndex
            let line = data[lineStart..<newline]
            lineStart = newline < data.endIndex ? data.index(after: newline) : data.endIndex
            guard line.contains(where: { !ResultsParser.isWhitespace($0) }) else { continue }

            let location = "line \(lineNumber)"
            let lineData = Data(line)
            guard let document = try? decoder.decode(WireDocument.self, from: lineData) else {
                problems.append(syntaxProblem(in: lineData, location: location))
                continue
            }
            if case .unknown = document {} else { recognised += 1 }
            let (page, lineProblems) = build(document, locationPrefix: location)
            if let page { pages.append(page) }
            problems += lineProblems
        }
        return recognised > 0 ? ParsedResults(pages: pages, problems: problems) : nil
    }

    /// Why `data` is not JSON, from `JSONSerialization`, whose messages carry the byte
    /// offset that `JSONDecoder` drops. Only runs on failure, so its cost is irrelevant.
    func syntaxProblem(in data: Data, location: String?) -> ParseProblem {
        var detail = "it is not valid JSON"
        var offset: Int?
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            if let description = (error as NSError).userInfo[NSDebugDescriptionKey] as? String {
                var text = description
                if text.hasSuffix(".") { text.removeLast() }
                if let range = text.range(of: " around character ") {
                    offset = Int(text[range.upperBound...])
                    text = String(text[..<range.lowerBound])
                }
                detail += " (\(text.prefix(1).lowercased() + text.dropFirst()))"
            }
        }
        if let location {
            return problem(location, detail + (offset.map { " at byte \($0) of the line" } ?? ""))
        }
        guard let offset, offset >= 0, offset <= data.count else { return problem("document", detail) }
        let prefix = data.prefix(offset)
        let line = prefix.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        let column = prefix.count - (prefix.lastIndex(of: 0x0A).map { $0 - prefix.startIndex + 1 } ?? 0) + 1
        return problem("byte \(offset)", detail + " at line \(line), column \(column)")
    }

    // MARK: Documents

    /// The page a document holds (if any) and the problems that belong to no page.
    func build(_ document: WireDocument, locationPrefix: String) -> (ResultsPage?, [ParseProblem]) {
        let prefix = locationPrefix.isEmpty ? "" : locationPrefix + ", "
        let here = locationPrefix.isEmpty ? "document" : locationPrefix
        switch document {
        case .v1Search(let wire):
            var converter = V1Converter(source: source, locationPrefix: prefix)
            let tweets = converter.convert(wire.statuses, key: "statuses")
            return (ResultsPage(
                format: .v1Search, tweets: tweets, includedTweets: converter.included,
                query: wire.search_metadata?.query.map(QueryText.decode),
                nextToken: nonEmpty(wire.search_metadata?.next_results),
                problems: converter.problems
            ), [])

        case .premiumSearch(let wire):
            var converter = V1Converter(source: source, locationPrefix: prefix)
            let tweets = converter.convert(wire.results, key: "results")
            return (ResultsPage(
                format: .premiumSearch, tweets: tweets, includedTweets: converter.included,
                query: nonEmpty(wire.requestParameters?.query), nextToken: nonEmpty(wire.next),
                problems: converter.problems
            ), [])

        case .v1Timeline(let list):
            var converter = V1Converter(source: source, locationPrefix: prefix)
            let tweets = converter.convert(list, key: "")
            return (ResultsPage(
                format: .v1Timeline, tweets: tweets, includedTweets: converter.included, problems: converter.problems
            ), [])

        case .v1Tweet(.failure(let message)):
            return (nil, [problem(here, "unusable v1.1 tweet: \(message)")])

        case .v1Tweet(.value(let wire)):
            var converter = V1Converter(source: source, locationPrefix: prefix)
            guard let tweet = converter.convertReporting(wire, at: "tweet") else {
                return (nil, converter.problems)
            }
            return (ResultsPage(
                format: .v1Tweet, tweets: [tweet], includedTweets: converter.included, problems: converter.problems
            ), [])

        case .v2Search(let wire):
            var converter = V2Converter(source: source, locationPrefix: prefix, includes: wire.includes)
            let tweets = converter.convert(wire.data, key: "data", strictMedia: true)
            let included = converter.convert(wire.includes?.tweets, key: "includes.tweets", strictMedia: false)
            converter.reportAPIErrors(wire.errors)
            return (ResultsPage(
                format: .v2Search, tweets: tweets, includedTweets: unique(included),
                query: wire.__twarc?.url.flatMap { QueryText.parameter("query", in: $0) },
                nextToken: nonEmpty(wire.meta?.next_token),
                problems: converter.problems
            ), [])

        case .v2Tweet(let wire):
            var converter = V2Converter(source: source, locationPrefix: prefix, includes: wire.includes)
            guard case .value(let data) = wire.data else {
                if case .failure(let message) = wire.data {
                    return (nil, [problem(here, "unusable v2 tweet: field \"data\": \(message)")])
                }
                return (nil, [])
            }
            let tweet = converter.convert(data, at: "data", strictMedia: true)
            let included = converter.convert(wire.includes?.tweets, key: "includes.tweets", strictMedia: false)
            converter.reportAPIErrors(wire.errors)
            return (ResultsPage(
                format: .v2Tweet, tweets: [tweet], includedTweets: unique(included), problems: converter.problems
            ), [])

        case .v2BareTweet(.failure(let message)):
            return (nil, [problem(here, "unusable v2 tweet: \(message)")])

        case .v2BareTweet(.value(let wire)):
            var converter = V2Converter(source: source, locationPrefix: prefix, includes: nil)
            let tweet = converter.convert(wire, at: "tweet", strictMedia: true)
            return (ResultsPage(format: .v2Tweet, tweets: [tweet], problems: converter.problems), [])

        case .apiErrors(let errors):
            guard !errors.isEmpty else { return (nil, [problem(here, "the API returned an error without details")]) }
            return (nil, errors.map { problem(here, V2Converter.describe($0)) })

        case .malformed(let format, let message):
            return (nil, [problem(here, "broken \(format.displayName): \(message)")])

        case .unknown(let found):
            return (nil, [problem(here, "not a Twitter API response: found \(found); expected a search page, a tweet or an array of tweets")])
        }
    }

    private func unique(_ tweets: [Tweet]) -> [Tweet] {
        var seen: Set<String> = []
        return tweets.filter { seen.insert($0.id).inserted }
    }
}

extension SourceFormat {
    /// How messages name the format.
    var displayName: String {
        switch self {
        case .v1Search: "v1.1 search page"
        case .v2Search: "v2 search page"
        case .premiumSearch: "premium search page"
        case .v1Timeline: "array of v1.1 tweets"
        case .v1Tweet: "v1.1 tweet"
        case .v2Tweet: "v2 tweet"
        }
    }
}

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
        if data.count >= sliceThreshold, ProcessInfo.processInfo.activeProcessorCount > 1,
           let sliced = parseInSlices(data, source: source, slices: ProcessInfo.processInfo.activeProcessorCount) {
            return sliced
        }
        return parseWhole(data, source: source)
    }

    /// Documents below this size are parsed on one thread.
    static let sliceThreshold = 512 * 1024

    static func parseWhole(_ data: Data, source: String) -> ParsedResults {
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

    /// A document that is almost all one array, parsed as `slices` documents at once,
    /// each with a run of its elements (``ArraySplit``), and put back together: the
    /// same pages, tweets, included tweets and problems as parsing it whole, in the same
    /// order, with problems located by their index in the whole array. Nil when the
    /// document has no such array, or when the slices cannot be put back together
    /// exactly (shapes that differ, a problem outside the array): then it is parsed whole.
    package static func parseInSlices(_ data: Data, source: String, slices wanted: Int) -> ParsedResults? {
        let prepared: (ArraySplit, [Range<Int>], [Data])? = data.withUnsafeBytes { bytes in
            guard let split = ArraySplit.find(in: bytes), split.elements.count >= 2 else { return nil }
            let ranges = ParallelSlices.split(0..<split.elements.count, parts: max(2, wanted))
            return (split, ranges, ranges.map { split.document($0, of: bytes) })
        }
        guard let (split, ranges, documents) = prepared else { return nil }
        return parseSlices(documents, ranges: ranges, key: split.key ?? "", source: source)
    }

    /// Documents cut from one by ``ArraySplit`` (holding `ranges` of its elements),
    /// parsed at once and put back together; nil when they cannot be put back exactly.
    static func parseSlices(_ documents: [Data], ranges: [Range<Int>], key: String, source: String)
        -> ParsedResults?
    {
        let results = ParallelSlices.map(documents.count) { parseWhole(documents[$0], source: source) }
        return merge(results, ranges: ranges, key: key)
    }

    /// The array a format's results are read from ("" for a document that is the
    /// array); nil for single posts. A document whose largest array is another one (a
    /// huge `errors` or `accounts`) is not cut: every slice would repeat the results.
    static func resultsArrayKey(of format: SourceFormat) -> String? {
        switch format {
        case .v1Search, .mastodonSearch: "statuses"
        case .v2Search: "data"
        case .premiumSearch: "results"
        case .v1Timeline, .mastodonStatuses: ""
        case .blueskyPosts: "posts"
        case .blueskyFeed: "feed"
        case .v1Tweet, .v2Tweet, .mastodonStatus, .blueskyPost, .blueskyFeedItem: nil
        }
    }

    private static func merge(_ results: [ParsedResults], ranges: [Range<Int>], key: String) -> ParsedResults? {
        guard let first = results.first?.pages.first,
              resultsArrayKey(of: first.format) == key,
              results.allSatisfy({ $0.problems.isEmpty && $0.pages.count == 1 })
        else { return nil }
        var tweets: [Tweet] = []
        var included: [Tweet] = []
        var includedIDs = Set<String>()
        var elementProblems: [ParseProblem] = []
        // Problems about the rest of the document (a v2 page's `errors`) come from bytes
        // every slice shares: each slice reports the same ones, all before or all after
        // its elements' problems, and the whole document reports them once, there.
        var shared: [ParseProblem]?
        var sharedFirst: Bool?
        for (result, range) in zip(results, ranges) {
            let page = result.pages[0]
            guard page.format == first.format, page.query == first.query, page.nextToken == first.nextToken else {
                return nil
            }
            tweets += page.tweets
            for t in page.includedTweets where includedIDs.insert(t.id).inserted { included.append(t) }
            var own: [ParseProblem] = []
            var others: [ParseProblem] = []
            var order: [Bool] = []  // true: an element's problem
            for problem in page.problems {
                if let moved = relocated(problem, key: key, by: range.lowerBound) {
                    own.append(moved)
                    order.append(true)
                } else {
                    others.append(problem)
                    order.append(false)
                }
            }
            if let shared, shared != others { return nil }
            shared = others
            if !own.isEmpty, !others.isEmpty {
                let before = order.prefix(others.count).allSatisfy { !$0 }
                let after = order.suffix(others.count).allSatisfy { !$0 }
                guard before || after, sharedFirst == nil || sharedFirst == before else { return nil }
                sharedFirst = before
            }
            elementProblems += own
        }
        let rest = shared ?? []
        let problems = sharedFirst ?? false ? rest + elementProblems : elementProblems + rest
        return ParsedResults(pages: [ResultsPage(
            format: first.format, tweets: tweets, includedTweets: included, query: first.query,
            nextToken: first.nextToken, problems: problems)], problems: [])
    }

    /// `key[i]…` as `key[i + offset]…`; nil for a problem located outside the array.
    static func relocated(_ problem: ParseProblem, key: String, by offset: Int) -> ParseProblem? {
        let location = problem.location
        guard location.hasPrefix(key + "[") else { return nil }
        let afterKey = location.dropFirst(key.count + 1)
        let digits = afterKey.prefix { $0.isASCII && $0.isNumber }
        guard let index = Int(digits), afterKey.dropFirst(digits.count).first == "]" else { return nil }
        let rest = afterKey.dropFirst(digits.count)
        return ParseProblem(source: problem.source, location: "\(key)[\(index + offset)\(rest)", message: problem.message)
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

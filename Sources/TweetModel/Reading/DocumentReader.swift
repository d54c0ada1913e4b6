import Foundation

/// The per-call state of ``ResultsParser``: the source name and one reusable decoder.
struct DocumentReader {
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
        var firstRecognised = false
        let lines = Self.nonBlankLines(of: data)
        for (position, (lineNumber, lineData)) in lines.enumerated() {
            let location = "line \(lineNumber)"
            guard let document = try? decoder.decode(WireDocument.self, from: lineData) else {
                problems.append(syntaxProblem(in: lineData, location: location))
                continue
            }
            if case .unknown = document {} else {
                recognised += 1
                if position == 0 { firstRecognised = true }
            }
            let (page, lineProblems) = build(document, locationPrefix: location)
            if let page { pages.append(page) }
            problems += lineProblems
        }
        // A broken pretty-printed document can have lines that parse alone (one tweet
        // per line inside an array); real JSON Lines start with a whole document, or
        // are mostly whole documents when their first line is damaged.
        let isJSONLines = recognised > 0 && (firstRecognised || recognised * 2 >= lines.count)
        return isJSONLines ? ParsedResults(pages: pages, problems: problems) : nil
    }

    /// Lines already known to be JSON Lines (a block of a long file), each its own
    /// document: a line that is not one is a problem at its number.
    func parseLineBlock(_ lines: ArraySlice<(number: Int, data: Data)>) -> ParsedResults {
        var pages: [ResultsPage] = []
        var problems: [ParseProblem] = []
        for (lineNumber, lineData) in lines {
            let location = "line \(lineNumber)"
            guard let document = try? decoder.decode(WireDocument.self, from: lineData) else {
                problems.append(syntaxProblem(in: lineData, location: location))
                continue
            }
            let (page, lineProblems) = build(document, locationPrefix: location)
            if let page { pages.append(page) }
            problems += lineProblems
        }
        return ParsedResults(pages: pages, problems: problems)
    }

    /// The lines holding more than whitespace, numbered from 1. Scans raw bytes:
    /// `Data`'s generic collection methods are far too slow for files of many megabytes.
    static func nonBlankLines(of data: Data) -> [(number: Int, data: Data)] {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var lines: [(number: Int, data: Data)] = []
            var number = 0
            var start = 0
            while start < bytes.count {
                number += 1
                var end = start
                var blank = true
                while end < bytes.count, bytes[end] != 0x0A {
                    if blank, !ResultsParser.isWhitespace(bytes[end]) { blank = false }
                    end += 1
                }
                if !blank { lines.append((number, Data(bytes[start..<end]))) }
                start = end + 1
            }
            return lines
        }
    }

    /// Why `data` is not JSON, from `JSONSerialization`, whose messages carry the byte
    /// offset that `JSONDecoder` drops. Only runs on failure, so its cost is irrelevant.
    func syntaxProblem(in data: Data, location: String?) -> ParseProblem {
        var detail = "it is not valid JSON"
        var offset: Int?
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            if let description = (error as NSError).userInfo["NSDebugDescription"] as? String {
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
        let (line, column) = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var line = 1
            var lineStart = 0
            for index in 0..<offset where bytes[index] == 0x0A {
                line += 1
                lineStart = index + 1
            }
            return (line, offset - lineStart + 1)
        }
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
                    return (nil, [problem(here, "unusable v2 tweet in \"data\": \(message)")])
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

        case .mastodonStatuses(let list):
            var converter = MastodonConverter(source: source, locationPrefix: prefix)
            return page(.mastodonStatuses, converter.convert(list, key: ""), converter)

        case .mastodonSearch(let wire):
            var converter = MastodonConverter(source: source, locationPrefix: prefix)
            return page(.mastodonSearch, converter.convert(wire.statuses, key: "statuses"), converter)

        case .mastodonStatus(.failure(let message)):
            return (nil, [problem(here, "unusable Mastodon status: \(message)")])

        case .mastodonStatus(.value(let wire)):
            var converter = MastodonConverter(source: source, locationPrefix: prefix)
            guard let post = converter.convertReporting(wire, at: "status") else { return (nil, converter.problems) }
            return page(.mastodonStatus, [post], converter)

        case .blueskyPosts(let wire):
            var converter = BlueskyConverter(source: source, locationPrefix: prefix)
            return page(.blueskyPosts, converter.convert(wire.posts, key: "posts"), converter, nextToken: wire.cursor)

        case .blueskyFeed(let wire):
            var converter = BlueskyConverter(source: source, locationPrefix: prefix)
            return page(.blueskyFeed, converter.convert(wire.feed, key: "feed"), converter, nextToken: wire.cursor)

        case .blueskyPost(.failure(let message)):
            return (nil, [problem(here, "unusable Bluesky post: \(message)")])

        case .blueskyPost(.value(let wire)):
            var converter = BlueskyConverter(source: source, locationPrefix: prefix)
            guard let post = converter.convertReporting(wire, at: "post") else { return (nil, converter.problems) }
            return page(.blueskyPost, [post], converter)

        case .blueskyFeedItem(.failure(let message)):
            return (nil, [problem(here, "unusable Bluesky feed item: \(message)")])

        case .blueskyFeedItem(.value(let wire)):
            var converter = BlueskyConverter(source: source, locationPrefix: prefix)
            guard let post = converter.convertItem(wire, at: "item") else { return (nil, converter.problems) }
            return page(.blueskyFeedItem, [post], converter)

        case .serviceError(let message):
            return (nil, [problem(here, "the service returned an error: \(message.isEmpty ? "no details" : message)")])

        case .apiErrors(let errors):
            guard !errors.isEmpty else { return (nil, [problem(here, "the API returned an error without details")]) }
            return (nil, errors.map { problem(here, V2Converter.describe($0)) })

        case .malformed(let format, let message):
            return (nil, [problem(here, "broken \(format.displayName): \(message)")])

        case .unknown(let found):
            return (nil, [problem(here, "not a Twitter API response, nor Mastodon's or Bluesky's: found \(found); expected a search page, a timeline, a feed or a single post")])
        }
    }

    /// A page of `posts` with what their converter collected on the way.
    private func page(
        _ format: SourceFormat, _ posts: [Tweet], _ converter: some PostConverter, nextToken: String? = nil
    ) -> (ResultsPage?, [ParseProblem]) {
        (ResultsPage(format: format, tweets: posts, includedTweets: converter.included,
                     nextToken: nonEmpty(nextToken), problems: converter.problems), [])
    }

    private func unique(_ tweets: [Tweet]) -> [Tweet] {
        var seen: Set<String> = []
        return tweets.filter { seen.insert($0.id).inserted }
    }
}

import Foundation
import Testing
@testable import TweetModel

/// An input read a piece at a time reads as it reads whole: the same posts in the same
/// order, problems at the lines and indexes of the whole file.
@Suite struct ResultsStreamTests {
    /// Limits small enough that a few kilobytes cross every boundary.
    static func tiny(window: Int = 3) -> ResultsStream.Limits {
        var limits = ResultsStream.Limits()
        limits.wholeLimit = 64
        limits.blockSize = 700
        limits.longestLine = 4000
        limits.windowElements = window
        return limits
    }

    static func write(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID()).json")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    static func drain(_ stream: ResultsStream) -> (tweets: [String], problems: [String], pieces: Int) {
        var tweets: [String] = [], problems: [String] = [], pieces = 0
        while let piece = stream.next() {
            pieces += 1
            tweets += piece.pages.flatMap { $0.tweets.map(\.id) }
            problems += piece.allProblems.map { "\($0.location): \($0.message)" }
        }
        return (tweets, problems, pieces)
    }

    @Test func jsonLinesAcrossBlocksKeepOrderAndLineNumbers() throws {
        var lines = (0..<40).map { i in
            Fixtures.v1SearchPage([Fixtures.v1Tweet(id: "\(100 + i)", text: "post \(i)")])
        }
        lines[17] = #"{"statuses": [ oops"#
        lines.insert("", at: 5)  // a blank line still counts in the numbering
        // A truncated last line, as a collection cut off mid-write leaves it.
        let text = lines.joined(separator: "\n") + "\n" + String(lines[3].prefix(30))
        let path = try Self.write(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let streamed = Self.drain(try ResultsStream(path: path, source: "c.jsonl", limits: Self.tiny()))
        let whole = ResultsParser.parse(Data(text.utf8), source: "c.jsonl")
        #expect(streamed.pieces > 5)
        #expect(streamed.tweets == whole.pages.flatMap { $0.tweets.map(\.id) })
        #expect(streamed.tweets.count == 39)
        #expect(streamed.problems == whole.allProblems.map { "\($0.location): \($0.message)" })
        #expect(streamed.problems.map { $0.prefix(8) } == ["line 19:", "line 42:"])
    }

    /// A collection whose first line is damaged is still JSON Lines; a minified
    /// document (one line of any length) is still one document.
    @Test func aDamagedFirstLineAndAOneLineDocument() throws {
        let good = (0..<5).map { Fixtures.v1SearchPage([Fixtures.v1Tweet(id: "\(10 + $0)", text: "p \($0)")]) }
        let damaged = try Self.write(#"{"statuses": [ oops"# + "\n" + good.joined(separator: "\n") + "\n")
        defer { try? FileManager.default.removeItem(atPath: damaged) }
        let lines = Self.drain(try ResultsStream(path: damaged, source: "c.jsonl", limits: Self.tiny()))
        #expect(lines.tweets == ["10", "11", "12", "13", "14"])
        #expect(lines.problems.map { $0.prefix(7) } == ["line 1:"])
        let oneLine = try Self.write(Fixtures.v1SearchPage((0..<9).map { Fixtures.v1Tweet(id: "\(30 + $0)", text: "q") }))
        defer { try? FileManager.default.removeItem(atPath: oneLine) }
        let document = Self.drain(try ResultsStream(path: oneLine, source: "d.json", limits: Self.tiny(window: 2)))
        #expect(document.tweets == (0..<9).map { "\(30 + $0)" })
        #expect(document.pieces == 5)
    }

    @Test func aLineLongerThanTheLimitIsSkippedWithAProblem() throws {
        let long = Fixtures.v1SearchPage((0..<60).map { Fixtures.v1Tweet(id: "\(500 + $0)", text: "long \($0)") })
        let text = [
            Fixtures.v1SearchPage([Fixtures.v1Tweet(id: "1", text: "before")]), long,
            Fixtures.v1SearchPage([Fixtures.v1Tweet(id: "2", text: "after")]),
        ].joined(separator: "\n") + "\n"
        #expect(long.utf8.count > Self.tiny().longestLine)
        let path = try Self.write(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let streamed = Self.drain(try ResultsStream(path: path, source: "c.jsonl", limits: Self.tiny()))
        #expect(streamed.tweets == ["1", "2"])
        #expect(streamed.problems == ["line 2: longer than 4000 bytes: skipped"])
    }

    @Test func oneLargeDocumentIsReadAWindowAtATime() throws {
        let json = Fixtures.v1SearchPage(SlicedParsingTests.v1Statuses(50))
        let path = try Self.write(json)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for window in [1, 4, 7, 50] {
            let stream = try ResultsStream(path: path, source: "big.json", limits: Self.tiny(window: window))
            var tweets: [Tweet] = [], included = Set<String>(), problems: [String] = []
            while let piece = stream.next() {
                tweets += piece.pages.flatMap(\.tweets)
                included.formUnion(piece.pages.flatMap { $0.includedTweets.map(\.id) })
                problems += piece.allProblems.map(\.location)
            }
            let whole = ResultsParser.parseWhole(Data(json.utf8), source: "big.json")
            #expect(tweets == whole.pages[0].tweets, "window \(window)")
            #expect(included == Set(whole.pages[0].includedTweets.map(\.id)), "window \(window)")
            #expect(problems == whole.allProblems.map(\.location), "window \(window)")
        }
    }

    @Test func aLargeDocumentWithoutOneArrayIsRefusedClearly() throws {
        let json = #"{"a": "\#(String(repeating: "x", count: 200))", "b": [1], "c": [2]}"#
        let path = try Self.write(json)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            _ = try ResultsStream(path: path, source: "odd.json", limits: Self.tiny())
        } throws: { error in
            (error as? ResultsStream.Failure)?.description.contains("not one array") == true
        }
        #expect(throws: ResultsStream.Failure.self) {
            _ = try ResultsStream(path: path + ".missing", source: "gone.json")
        }
    }

    /// How far into the input each piece ends: growing, never past the input, the
    /// whole input at the end (a run's progress is these bytes out of the files' sizes).
    @Test(arguments: [false, true])
    func consumedGrowsToTheInputsSize(oneDocument: Bool) throws {
        let posts = (0..<30).map { Fixtures.v1Tweet(id: "\(700 + $0)", text: "post \($0)") }
        let text = oneDocument ? Fixtures.v1SearchPage(posts)
            : posts.map { Fixtures.v1SearchPage([$0]) }.joined(separator: "\n") + "\n"
        let path = try Self.write(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let stream = try ResultsStream(path: path, source: "c", limits: Self.tiny(window: 4))
        #expect(stream.size == text.utf8.count)
        #expect(stream.consumed == 0)
        var seen: [Int] = []
        while stream.next() != nil { seen.append(stream.consumed) }
        #expect(seen.count > 3)
        #expect(seen == seen.sorted())
        #expect(seen.allSatisfy { $0 > 0 && $0 <= text.utf8.count })
        #expect(seen.last == text.utf8.count)
    }
}

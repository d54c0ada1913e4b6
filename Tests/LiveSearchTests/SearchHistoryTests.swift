import Foundation
import Testing
@testable import LiveSearch

@Suite struct SearchHistoryTests {
    func entry(_ q: String, _ api: String = "v2", at seconds: TimeInterval, tweets: Int = 1) -> SearchHistory.Entry {
        .init(query: q, api: api, at: Date(timeIntervalSince1970: 1_700_000_000 + seconds), pages: 1, tweets: tweets)
    }

    @Test func mostRecentFirstWithARepeatedQueryMovedToTheTop() throws {
        let history = SearchHistory(cacheRoot: try temporaryDirectory())
        #expect(try history.entries().isEmpty)
        try history.record(entry("#ucd", at: 0))
        try history.record(entry("@nasa", at: 10))
        try history.record(entry("#ucd", "v1.1", at: 20))
        try history.record(entry("#ucd", at: 30, tweets: 250))
        let list = try history.entries()
        #expect(list.map(\.query) == ["#ucd", "#ucd", "@nasa"])
        #expect(list.map(\.api) == ["v2", "v1.1", "v2"])
        #expect(list.first?.tweets == 250)
        #expect(list.first?.at == Date(timeIntervalSince1970: 1_700_000_030))
    }

    @Test func keepsAtMostAHundred() throws {
        let history = SearchHistory(cacheRoot: try temporaryDirectory())
        for i in 0..<130 { try history.record(entry("#q\(i)", at: TimeInterval(i))) }
        let list = try history.entries()
        #expect(list.count == SearchHistory.limit)
        #expect(list.first?.query == "#q129")
        #expect(list.last?.query == "#q30")
    }

    @Test func theFileIsPlainJSONWithTheDocumentedFields() throws {
        let dir = try temporaryDirectory()
        try SearchHistory(cacheRoot: dir).record(entry("#ucd", at: 0))
        let data = try Data(contentsOf: dir.appendingPathComponent("history.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let first = try #require((object["searches"] as? [[String: Any]])?.first)
        #expect(Set(first.keys) == ["query", "api", "at", "pages", "tweets"])
        #expect(first["at"] as? String == "2023-11-14T22:13:20Z")
    }

    @Test func aDamagedFileIsKeptAsideAndANewHistoryStarted() throws {
        let dir = try temporaryDirectory()
        let file = dir.appendingPathComponent("history.json")
        try Data("{ not json".utf8).write(to: file)
        let history = SearchHistory(cacheRoot: dir)
        #expect(throws: LiveSearchError.self) { try history.entries() }
        try history.record(entry("#ucd", at: 0))
        #expect(try history.entries().map(\.query) == ["#ucd"])
        #expect(try Data(contentsOf: dir.appendingPathComponent("history.json.damaged")) == Data("{ not json".utf8))
    }
}

import Foundation
import Testing
@testable import TweetModel

/// Removing elements and members by overwriting them with spaces: what is left is
/// JSON with the kept items (Foundation reads it), at the same byte offsets.
@Suite struct JSONBlankingTests {
    /// Removes the elements at `indices` of the array at `path` (keys, from the root).
    func removing(_ json: String, at path: [String], _ indices: Set<Int>) throws -> String {
        var bytes = Array(json.utf8)
        let blanks = try bytes.withUnsafeBytes { raw -> [Range<Int>] in
            var node = try #require(JSONSpan.parse(raw))
            for key in path { node = try #require(node[key]) }
            guard case let .array(elements, interior) = node.value else { throw CancellationError() }
            return JSONBlanking.blanks(items: elements.map(\.range), removing: indices, interior: interior, in: raw)
        }
        JSONBlanking.apply(JSONBlanking.normalized(blanks), to: &bytes)
        #expect(bytes.count == json.utf8.count)
        return String(decoding: bytes, as: UTF8.self)
    }

    func values(_ json: String) throws -> [Int] {
        try JSONDecoder().decode([String: [Int]].self, from: Data(json.utf8))["a"] ?? []
    }

    @Test(arguments: [
        (Set([0]), [2, 3, 4]), (Set([3]), [1, 2, 3]), (Set([1, 2]), [1, 4]), (Set([2, 3]), [1, 2]),
        (Set([0, 3]), [2, 3]), (Set([0, 1, 2, 3]), []), (Set<Int>(), [1, 2, 3, 4]),
    ])
    func everyPatternOfRemovalLeavesJSON(indices: Set<Int>, kept: [Int]) throws {
        for json in [#"{"a":[1,2,3,4]}"#, "{\"a\" : [ 1 ,\n 2 , 3,\n 4 ] }", #"{"a":[1,2,3,4,]}"#] {
            let out = try removing(json, at: ["a"], indices)
            #expect(try values(out) == kept, "\(json) without \(indices): \(out)")
        }
    }

    @Test func objectsLoseMembersAndKeepTheRestInPlace() throws {
        let json = #"{"keep":{"id":"1","quoted_status":{"id_str":"9","text":"secret words"},"n":2.50},"tail":"x"}"#
        var bytes = Array(json.utf8)
        bytes.withUnsafeBytes { raw in
            let root = JSONSpan.parse(raw)!
            let keep = root["keep"]!
            guard case let .object(members, interior) = keep.value else { return }
            let index = members.firstIndex { $0.key == "quoted_status" }!
            let blanks = JSONBlanking.blanks(items: members.map(\.item), removing: [index], interior: interior, in: raw)
            var copy = Array(raw)
            JSONBlanking.apply(blanks, to: &copy)
            bytes = copy
        }
        let out = String(decoding: bytes, as: UTF8.self)
        #expect(!out.contains("secret"))
        // Numbers stay as written (2.50), every other byte where it was.
        #expect(out.contains(#""n":2.50"#))
        #expect(out.firstRange(of: #""tail":"x""#)?.lowerBound.utf16Offset(in: out) == json.firstRange(of: #""tail":"x""#)?.lowerBound.utf16Offset(in: json))
        let decoded = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
        #expect((decoded?["keep"] as? [String: Any])?.keys.sorted() == ["id", "n"])
    }

    @Test func stringsWithEscapesAreReadAndNestingIsBounded() throws {
        let json = #"{"id":"a\"b\u00e9","list":[[[]]]}"#
        let id = Array(json.utf8).withUnsafeBytes { JSONSpan.parse($0)?["id"]?.text }
        #expect(id == "a\"bé")
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        #expect(Array(deep.utf8).withUnsafeBytes { JSONSpan.parse($0) } == nil)
        for broken in [#"{"a":[1,2}"#, #"{"a" 1}"#, #"[1,,2]"#, #"{"a":1} x"#, ""] {
            #expect(Array(broken.utf8).withUnsafeBytes { JSONSpan.parse($0) } == nil, "\(broken)")
        }
    }
}

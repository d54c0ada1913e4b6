import Catalog
import Foundation
import TweetModel

/// Removes forgotten posts from a saved results page (`<cache>/results/…json`, the
/// API's response byte for byte), as the API would have served it without them:
/// the post, reposts of it, a quoted copy of it inside another post, and the
/// `includes` (users, media) only it used. Everything else keeps its bytes
/// (``JSONBlanking``), so the page is still the API's response to `fetch` and to any
/// other tool.
struct PageRedaction {
    /// The ids `forget` removes, on the page's network.
    let ids: Set<String>

    /// Arrays that hold posts: X v2's `data` and `includes.tweets`, v1.1's `statuses`
    /// and premium `results`, Bluesky's `posts` and `feed`, and a top-level array
    /// (Mastodon's timelines). Ids of users and media are other numbers: never
    /// looked at.
    static let postArrays: Set<String> = ["data", "tweets", "statuses", "results", "posts", "feed"]

    /// The network of a page from its saved name (`<UTC>-<api>-<query>-p<n>.json`,
    /// ``PageStore``); nil for a file not named so.
    static func network(ofPage name: String) -> Network? {
        let parts = name.split(separator: "-", maxSplits: 2)
        guard parts.count >= 2 else { return nil }
        switch parts[1] {
        case "v2", "v1.1": return .x
        case "mastodon": return .mastodon
        case "bluesky": return .bluesky
        default: return nil
        }
    }

    /// Whether `bytes` may name one of the ids: a quick look for them as whole
    /// tokens between quotes or digits' ends, so the pages that cannot hold a
    /// forgotten post (nearly all) are not parsed.
    func mayHold(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let lengths = Set(ids.map(\.utf8.count))
        guard let shortest = lengths.min() else { return false }
        var i = 0
        let n = bytes.count
        while i < n {
            // A token: a run of bytes that are neither quotes, separators nor spaces.
            while i < n, Self.isBoundary(bytes[i]) { i += 1 }
            let start = i
            while i < n, !Self.isBoundary(bytes[i]) { i += 1 }
            let length = i - start
            if length >= shortest, lengths.contains(length),
               ids.contains(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)) {
                return true
            }
        }
        return false
    }

    private static func isBoundary(_ byte: UInt8) -> Bool {
        // Not `:`: Bluesky's ids are `at://…` URIs.
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: ",")
            || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "{")
            || byte == UInt8(ascii: "}") || JSONStructureScanner.isSpace(byte)
    }

    /// The ranges to blank, and how many posts go; nil when the page is not JSON.
    func blanks(_ bytes: UnsafeRawBufferPointer) -> (blanks: [Range<Int>], posts: Int)? {
        guard let root = JSONSpan.parse(bytes) else { return nil }
        var work = Work(ids: ids)
        work.visit(root, postArray: { if case .array = root.value { return true } else { return false } }(), bytes: bytes)
        // X v2's includes: users and media only the removed posts used.
        if let includes = root["includes"] {
            work.removeUnused(includes["users"], key: "id", removed: work.removedAuthors, kept: work.keptAuthors, bytes: bytes)
            work.removeUnused(includes["media"], key: "media_key", removed: work.removedMedia, kept: work.keptMedia, bytes: bytes)
        }
        return (work.blanks, work.posts)
    }

    /// The same for JSON Lines (a stream's batch, `results/streams/*.jsonl`): each
    /// line is its own document. A line that is a forgotten post (a Mastodon status, a
    /// Bluesky post view, X's `{"data": {…}}`) is blanked whole, which readers skip as
    /// an empty line; other lines are redacted as pages are. Nil when a line that may
    /// name an id is not JSON.
    func lineBlanks(_ bytes: UnsafeRawBufferPointer) -> (blanks: [Range<Int>], posts: Int)? {
        var blanks: [Range<Int>] = []
        var posts = 0
        var start = 0
        let work = Work(ids: ids)
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            if mayHold(line) {
                guard let root = JSONSpan.parse(line) else { return nil }
                let single = root["data"].flatMap { data -> JSONSpan? in
                    if case .object = data.value { return data } else { return nil }
                }
                if case .object = root.value, work.isForgotten(root) || single.map(work.isForgotten) == true {
                    blanks.append(start..<end)
                    posts += 1
                } else if let found = blanksOfPage(line) {
                    blanks += found.blanks.map { ($0.lowerBound + start)..<($0.upperBound + start) }
                    posts += found.posts
                }
            }
            start = end + 1
        }
        return (blanks, posts)
    }

    private func blanksOfPage(_ bytes: UnsafeRawBufferPointer) -> (blanks: [Range<Int>], posts: Int)? { blanks(bytes) }

    private struct Work {
        let ids: Set<String>
        var blanks: [Range<Int>] = []
        var posts = 0
        var removedAuthors = Set<String>(), keptAuthors = Set<String>()
        var removedMedia = Set<String>(), keptMedia = Set<String>()

        /// A post's own ids: X's `id`/`id_str`, Mastodon's `id`, Bluesky's `uri`
        /// (a feed item's `post`).
        func isForgotten(_ post: JSONSpan) -> Bool {
            for key in ["id_str", "id", "uri"] {
                if let id = post[key]?.text, ids.contains(id) { return true }
            }
            // A repost goes with what it reposts: v1.1 `retweeted_status`, Mastodon
            // `reblog`, Bluesky's feed item `post`, v2 `referenced_tweets` of type retweeted.
            for key in ["retweeted_status", "reblog", "post"] {
                if let inner = post[key], case .object = inner.value, isForgotten(inner) { return true }
            }
            for reference in post["referenced_tweets"]?.elements ?? []
            where reference["type"]?.text == "retweeted" {
                if let id = reference["id"]?.text, ids.contains(id) { return true }
            }
            return false
        }

        mutating func visit(_ node: JSONSpan, postArray: Bool, bytes: UnsafeRawBufferPointer) {
            switch node.value {
            case let .array(elements, interior):
                var removing = Set<Int>()
                for (i, element) in elements.enumerated() {
                    guard case .object = element.value else { continue }
                    if postArray, isForgotten(element) {
                        removing.insert(i)
                        note(element, removed: true)
                    } else {
                        if postArray { note(element, removed: false) }
                        visit(element, postArray: false, bytes: bytes)
                    }
                }
                posts += removing.count
                blanks += JSONBlanking.blanks(items: elements.map(\.range), removing: removing, interior: interior, in: bytes)
            case let .object(members, interior):
                var removing = Set<Int>()
                for (i, member) in members.enumerated() {
                    // A copy of a forgotten post inside a kept one: v1.1's
                    // `quoted_status`, Bluesky's embedded `record`, and the `root` and
                    // `parent` a feed item's `reply` carries whole.
                    if ["quoted_status", "record", "root", "parent"].contains(member.key), case .object = member.value.value,
                       member.value["uri"] != nil || member.value["id_str"] != nil || member.value["id"] != nil,
                       isForgotten(member.value) {
                        removing.insert(i)
                        continue
                    }
                    visit(member.value, postArray: Self.isPostArray(member), bytes: bytes)
                }
                blanks += JSONBlanking.blanks(items: members.map(\.item), removing: removing, interior: interior, in: bytes)
            default:
                break
            }
        }

        static func isPostArray(_ member: JSONSpan.Member) -> Bool {
            guard case .array = member.value.value else { return false }
            return PageRedaction.postArrays.contains(member.key)
        }

        /// Notes a v2 post's author and media keys, removed or kept.
        mutating func note(_ post: JSONSpan, removed: Bool) {
            let author = post["author_id"]?.text
            let media = post["attachments"]?["media_keys"]?.elements.compactMap(\.text) ?? []
            if removed {
                if let author { removedAuthors.insert(author) }
                removedMedia.formUnion(media)
            } else {
                if let author { keptAuthors.insert(author) }
                keptMedia.formUnion(media)
            }
        }

        mutating func removeUnused(_ list: JSONSpan?, key: String, removed: Set<String>, kept: Set<String>,
                                   bytes: UnsafeRawBufferPointer) {
            guard let list, case let .array(elements, interior) = list.value, !removed.isEmpty else { return }
            let removing = Set(elements.indices.filter { i in
                guard let value = elements[i][key]?.text else { return false }
                return removed.contains(value) && !kept.contains(value)
            })
            blanks += JSONBlanking.blanks(items: elements.map(\.range), removing: removing, interior: interior, in: bytes)
        }
    }
}

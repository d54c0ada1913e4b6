import Foundation
import MediaFetch
import Pipeline

/// A cache of text-only tweets, made by the real pipeline from a v1.1 page (no
/// media and no avatars, so nothing is fetched): for paging and date tests, which
/// need many tweets or exact ages rather than images.
enum TextCacheFixture {
    struct Post {
        var id: String
        var createdAt: Date
        var text: String
        var user = "ana"
    }

    static func make(_ posts: [Post], runAt: Date = Date()) async throws -> URL {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("tc-text-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        try await add(posts, to: cache, runAt: runAt)
        return cache
    }

    /// One more run (one more manifest) into `cache`.
    static func add(_ posts: [Post], to cache: URL, runAt: Date) async throws {
        var options = PipelineOptions(cacheRoot: cache, fetch: FetchConfiguration())
        options.now = { runAt }
        _ = try await CachePipeline(options: options).run([ResultsInput(name: "text.json", data: page(posts))])
    }

    static func page(_ posts: [Post]) -> Data {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "EEE MMM dd HH:mm:ss Z yyyy"
        let statuses: [[String: Any]] = posts.map { post in
            let tags = post.text.split(separator: " ").filter { $0.hasPrefix("#") }
            var offset = 0
            var hashtags: [[String: Any]] = []
            for word in post.text.split(separator: " ", omittingEmptySubsequences: false) {
                if tags.contains(word) {
                    hashtags.append(["text": String(word.dropFirst()), "indices": [offset, offset + word.count]])
                }
                offset += word.count + 1
            }
            return [
                "id_str": post.id, "created_at": format.string(from: post.createdAt), "full_text": post.text,
                "entities": ["hashtags": hashtags],
                "user": ["id_str": "u-\(post.user)", "screen_name": post.user, "name": post.user.capitalized],
            ]
        }
        return try! JSONSerialization.data(withJSONObject: ["statuses": statuses])
    }
}

import Foundation
import Testing
import TestSupport

/// The cache the inspect command tests read: made once by the real `tweetcache fetch`
/// from a results page written here (ages at every relative-date boundary from
/// ``InspectFixture/now``, emoji and combining marks before entities, shared avatar),
/// with images served by a loopback server. Tests that change a cache work on a copy.
actor InspectFixture {
    static let shared = InspectFixture()
    static let now = Date(timeIntervalSince1970: 1_767_268_800)  // 2026-01-01T12:00:00Z
    static let nowArgument = "2026-01-01T12:00:00Z"
    /// Text of tweet 101: a flag ZWJ sequence, a skin-tone emoji and e + combining acute
    /// before the entities, so UTF-16 or grapheme offsets would land in the wrong place.
    static let emojiText = "🏳️‍🌈👍🏽 e\u{301} #ucd @bob https://t.co/abc"

    /// The cache the read-only tests share, and a pristine copy made before any
    /// test opened it: copying a cache while another process has its SQLite
    /// index open can catch the WAL files half gone.
    private var built: Task<(shared: URL, template: URL), any Error>?

    private func caches() async throws -> (shared: URL, template: URL) {
        if let built { return try await built.value }
        let task = Task { () async throws -> (shared: URL, template: URL) in
            let shared = try await Self.build()
            let template = try Self.tempDir().appendingPathComponent("cache")
            try FileManager.default.copyItem(at: shared, to: template)
            let page = shared.deletingLastPathComponent().appendingPathComponent("page.json")
            try FileManager.default.copyItem(at: page, to: template.deletingLastPathComponent().appendingPathComponent("page.json"))
            return (shared, template)
        }
        built = task
        return try await task.value
    }

    func cache() async throws -> URL { try await caches().shared }

    /// A private copy of the pristine cache, for tests that damage or collect it.
    func copy() async throws -> URL {
        let source = try await caches().template
        let target = try Self.tempDir().appendingPathComponent("cache")
        try FileManager.default.copyItem(at: source, to: target)
        let page = source.deletingLastPathComponent().appendingPathComponent("page.json")
        try FileManager.default.copyItem(at: page, to: target.deletingLastPathComponent().appendingPathComponent("page.json"))
        return target
    }

    static func tempDir() throws -> URL {
        try ScratchDirectory.make("tc-inspect")
    }

    /// Scalar offset of `needle` in `text`: how the API counts entity indices.
    static func offset(_ needle: String, in text: String) -> Int {
        let range = text.range(of: needle)!
        return text.unicodeScalars[text.startIndex..<range.lowerBound].count
    }

    static func twitterDate(_ secondsAgo: Int) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "EEE MMM dd HH:mm:ss Z yyyy"
        return f.string(from: now.addingTimeInterval(-Double(secondsAgo)))
    }

    static func user(_ name: String) -> String {
        """
        {"id_str":"\(name.count)\(name.utf8.first!)","screen_name":"\(name)","name":"\(name.capitalized)",\
        "profile_image_url_https":"https://pbs.twimg.com/profile_images/1/\(name)_normal.png"}
        """
    }

    static func photo(_ id: String) -> String {
        #"{"id_str":"\#(id)","type":"photo","media_url_https":"https://pbs.twimg.com/media/\#(id).png","indices":[0,0]}"#
    }

    /// Seconds before `now` of each of bob's tweets, and the age `tweets` must print.
    static let boundaries: [(id: String, ago: Int, age: String)] = [
        ("103", 3599, "59m"), ("104", 3600, "1h 0m"), ("105", 86_399, "23h 59m"), ("106", 86_400, "1d"),
        ("107", 364 * 86_400 + 86_399, "364d"), ("108", 365 * 86_400, "365d"), ("109", -30, "0m"),
    ]

    static func page() -> String {
        let t = emojiText
        func range(_ s: String) -> String { "[\(offset(s, in: t)),\(offset(s, in: t) + s.unicodeScalars.count)]" }
        var statuses: [String] = []
        let escaped = t.replacingOccurrences(of: "/", with: "\\/")
        statuses.append("""
            {"id_str":"101","created_at":"\(twitterDate(59))","full_text":"\(escaped)",
             "entities":{"hashtags":[{"text":"ucd","indices":\(range("#ucd"))}],
               "user_mentions":[{"screen_name":"bob","id_str":"2","indices":\(range("@bob"))}],
               "urls":[{"url":"https://t.co/abc","expanded_url":"https://example.com/story","display_url":"example.com/story","indices":\(range("https://t.co/abc"))}]},
             "extended_entities":{"media":[\(photo("P1")),\(photo("P2"))]},
             "user":\(user("dana"))}
            """)
        statuses.append("""
            {"id_str":"102","created_at":"\(twitterDate(60))","full_text":"plain words",
             "extended_entities":{"media":[\(photo("P3"))]},"user":\(user("dana"))}
            """)
        for b in boundaries {
            statuses.append("""
                {"id_str":"\(b.id)","created_at":"\(twitterDate(b.ago))","full_text":"tweet \(b.id) #other","entities":{"hashtags":[{"text":"other","indices":[10,16]}]},"user":\(user("bob"))}
                """)
        }
        return #"{"statuses":["# + statuses.joined(separator: ",") + #"],"search_metadata":{"query":"%23ucd"}}"#
    }

    static func server() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { req in
            let sizes = ["P1": (64, 48), "P2": (40, 40), "P3": (30, 60), "P4": (20, 20), "dana": (48, 48), "bob": (32, 32)]
            for (name, size) in sizes where req.path.contains(name) {
                return .respond(status: 200, body: TinyPNG.make(width: size.0, height: size.1, tag: name))
            }
            return .respond(status: 404)
        }
    }

    static func fetch(_ page: String, into cache: URL, named name: String = "page.json") async throws -> CommandOutput {
        let server = try server()
        let dir = cache.deletingLastPathComponent()
        let file = dir.appendingPathComponent(name)
        try Data(page.utf8).write(to: file)
        let bin = try BuiltProduct.url(named: "tweetcache")
        return try await CommandRunner.run(bin, ["fetch", file.path, "--cache", cache.path, "--quiet",
                                                  "--thumb-sizes", "32", "--mirror", "pbs.twimg.com=\(server.baseURL)"])
    }

    static func build() async throws -> URL {
        let cache = try tempDir().appendingPathComponent("cache")
        let out = try await fetch(page(), into: cache)
        guard out.status == 0 else { throw FixtureError(message: "fetch failed: \(out.stderr)") }
        return cache
    }

    struct FixtureError: Error { var message: String }
}

import Foundation

/// A v1.1 page: two tweets by one user (shared avatar), three photos, one of them gone.
public let cliPage = """
{"statuses":[
 {"id_str":"1","created_at":"Wed Oct 10 20:19:24 +0000 2018","full_text":"one #ucd",
  "entities":{"hashtags":[{"text":"ucd","indices":[4,8]}]},
  "extended_entities":{"media":[
    {"id_str":"11","type":"photo","media_url_https":"https://pbs.twimg.com/media/AAA.jpg"},
    {"id_str":"12","type":"photo","media_url_https":"https://pbs.twimg.com/media/BBB.jpg"}]},
  "user":{"id_str":"7","screen_name":"dana","name":"Dana","profile_image_url_https":"https://pbs.twimg.com/profile_images/7/dana_normal.jpg"}},
 {"id_str":"2","created_at":"Wed Oct 10 21:19:24 +0000 2018","full_text":"two",
  "extended_entities":{"media":[{"id_str":"13","type":"photo","media_url_https":"https://pbs.twimg.com/media/GONE.jpg"}]},
  "user":{"id_str":"7","screen_name":"dana","name":"Dana","profile_image_url_https":"https://pbs.twimg.com/profile_images/7/dana_normal.jpg"}}
],"search_metadata":{"query":"%23ucd"}}
"""

/// `n` bytes that start as a JPEG does, varied by `seed`.
public func jpegBytes(_ n: Int, _ seed: UInt8) -> [UInt8] {
    [0xFF, 0xD8, 0xFF, 0xE0] + (0..<max(0, n - 4)).map { UInt8(truncatingIfNeeded: Int($0) &* 7 &+ Int(seed)) }
}

/// The origin of ``cliPage``'s photos and avatar (the one gone answers 404).
public func makeServer() throws -> LoopbackHTTPServer {
    try LoopbackHTTPServer { req in
        if req.path.contains("GONE") { return .respond(status: 404) }
        if req.path.contains("AAA") { return .respond(status: 200, body: jpegBytes(20_000, 1)) }
        if req.path.contains("BBB") { return .respond(status: 200, body: jpegBytes(30_000, 2)) }
        if req.path.contains("dana_400x400") { return .respond(status: 200, body: jpegBytes(5_000, 3)) }
        return .respond(status: 404)
    }
}

public func tempDir() throws -> URL {
    try ScratchDirectory.make("tc-cli")
}

/// A scratch folder named after `name`, holding ``cliPage`` as `page.json`.
public func scratchWithPage(_ name: String) throws -> (dir: URL, page: URL) {
    let dir = try ScratchDirectory.make(name)
    let page = dir.appendingPathComponent("page.json")
    try Data(cliPage.utf8).write(to: page)
    return (dir, page)
}

/// The environment of a `demo` that needs a filled cache rather than the sample's full
/// size: its photos drawn at a quarter of their width and height (`TWEETCACHE_DEMO_SHRINK`).
public let smallDemo = ["TWEETCACHE_DEMO_SHRINK": "4"]

/// The `summary` object of a command's `--json` output.
public func summary(_ out: CommandOutput) throws -> [String: Any] {
    let json = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any]
    guard let summary = json?["summary"] as? [String: Any] else {
        throw NoSummary(description: "no summary in: \(out.stdout) \(out.stderr)")
    }
    return summary
}

public struct NoSummary: Error, CustomStringConvertible {
    public var description: String
}

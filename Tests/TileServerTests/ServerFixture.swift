import CacheCore
import BlobStore
import Foundation
import Imaging
import MediaFetch
import Pipeline
import TestSupport
@testable import TileServer

/// A cache made by the real pipeline from a loopback origin, once per test
/// process: one photo with an eager pyramid, one left for lazy tiles, an avatar,
/// and a blob that is not an image.
struct ServerFixture: Sendable {
    let cache: URL
    /// 1200x900, four solid quadrants; pyramid made by the pipeline.
    let eager: BlobHash
    /// 1500x1000, four solid quadrants; thumbnails only, tiles made on request.
    let lazy: BlobHash
    let avatar: BlobHash
    /// Bytes stored in the cache that no decoder accepts (an MP4 header).
    let video: BlobHash

    static let quadrantColors: [(UInt8, UInt8, UInt8)] = [(220, 30, 30), (30, 200, 30), (30, 30, 220), (230, 220, 30)]

    /// Top-left red, top-right green, bottom-left blue, bottom-right yellow.
    static func quadrants(width: Int, height: Int) throws -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let q = (y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)
                let c = quadrantColors[q]
                let i = (y * width + x) * 3
                bytes[i] = c.0
                bytes[i + 1] = c.1
                bytes[i + 2] = c.2
            }
        }
        return try PixelBuffer(width: width, height: height, channels: 3, bytes: bytes)
    }

    static let shared = Task { try await make() }

    static func get() async throws -> ServerFixture { try await shared.value }

    private static func page(_ tweets: [(id: String, user: String, text: String, media: String)]) -> Data {
        let statuses = tweets.map { t in
            """
            {"id_str":"\(t.id)","created_at":"Wed Oct 10 20:19:24 +0000 2018","full_text":"\(t.text)",
             "entities":{"hashtags":[{"text":"zoom","indices":[0,5]}]},
             "extended_entities":{"media":[{"id_str":"m\(t.id)","type":"photo","media_url_https":"https://pbs.twimg.com/media/\(t.media).jpg"}]},
             "user":{"id_str":"u\(t.user)","screen_name":"\(t.user)","name":"\(t.user.capitalized)",
                     "profile_image_url_https":"https://pbs.twimg.com/profile_images/1/face_normal.jpg"}}
            """
        }
        return Data("{\"statuses\":[\(statuses.joined(separator: ","))]}".utf8)
    }

    static func make() async throws -> ServerFixture {
        let eagerJPEG = try JPEGEncoder.encode(quadrants(width: 1200, height: 900), quality: 92)
        let lazyJPEG = try JPEGEncoder.encode(quadrants(width: 1500, height: 1000), quality: 92)
        let avatarJPEG = try JPEGEncoder.encode(quadrants(width: 400, height: 400), quality: 80)
        let origin = try LoopbackHTTPServer { request in
            if request.path.contains("Eager1") { return .respond(status: 200, body: eagerJPEG) }
            if request.path.contains("Lazy1") { return .respond(status: 200, body: lazyJPEG) }
            if request.path.contains("face_400x400") { return .respond(status: 200, body: avatarJPEG) }
            return .respond(status: 404)
        }
        defer { origin.stop() }
        let cache = try ScratchDirectory.make("tc-serve")

        var fetch = FetchConfiguration()
        fetch.mirrors = try MirrorMap(specs: ["pbs.twimg.com=\(origin.baseURL)/pbs"])
        var options = PipelineOptions(cacheRoot: cache, fetch: fetch)
        var derive = DeriveOptions()
        derive.tiles = .eager
        options.derive = derive
        _ = try await CachePipeline(options: options).run(
            [ResultsInput(name: "eager.json", data: page([("101", "eve", "#zoom quadrants", "Eager1")]))])
        derive.tiles = .lazy
        options.derive = derive
        // A later manifest: the second run is stamped a minute after the first.
        let later = Date().addingTimeInterval(60)
        options.now = { later }
        _ = try await CachePipeline(options: options).run(
            [ResultsInput(name: "lazy.json", data: page([("102", "bob", "#zoom more quadrants", "Lazy1")]))])

        let store = try BlobStore(root: cache)
        var mp4 = [UInt8](repeating: 0, count: 64)
        mp4.replaceSubrange(4..<12, with: Array("ftypisom".utf8))
        let video = try store.put(mp4).hash
        return ServerFixture(
            cache: cache, eager: BlobHash(hashing: eagerJPEG), lazy: BlobHash(hashing: lazyJPEG),
            avatar: BlobHash(hashing: avatarJPEG), video: video)
    }

    /// A private copy of the cache, for a server that writes into it.
    func copyOfCache() throws -> URL {
        // Other tests' servers open and close the shared cache's databases meanwhile:
        // SQLite removes `-shm` and `-wal` when the last connection closes (after moving
        // the log into the database). A copy during which a file vanished may have the
        // database from before that move without its log, so it is made again.
        var attempt = 0
        while true {
            attempt += 1
            let copy = ScratchDirectory.path("tc-serve-copy")
            do {
                try FileManager.default.copyItem(at: cache, to: copy)
                return copy
            } catch let error as NSError where attempt < 5
                && (error.code == NSFileNoSuchFileError || error.code == NSFileReadNoSuchFileError) {
                try? FileManager.default.removeItem(at: copy)
            }
        }
    }

    /// A server on a free loopback port over the fixture's cache.
    func start(_ adjust: (inout TileServerConfiguration) -> Void = { _ in }) async throws -> TileServer {
        var configuration = TileServerConfiguration(cacheRoot: cache)
        configuration.port = 0
        // The fixture's cache is shared by tests running at once: packs built in the
        // background would change what the others see. The test of lazy packs turns it on.
        configuration.buildsPacks = false
        adjust(&configuration)
        return try await TileServer.start(configuration, executor: ServerThreads.shared)
    }
}

/// One request on a connection of its own (`Connection: close`).
func fetch(
    _ server: TileServer, _ target: String, method: String = "GET", headers: [String: String] = [:], body: [UInt8] = []
) async throws -> RawHTTPClient.Response {
    let port = server.port
    return try await onOwnThread { try RawHTTPClient.send(method, target, port: port, headers: headers, body: body) }
}

/// The sum of the `/metrics` samples whose line starts with `prefix` (a name, or a
/// name and its labels).
func metric(_ server: TileServer, _ prefix: String) async throws -> Int {
    let text = try await fetch(server, "/metrics").text
    return text.split(separator: "\n").filter { $0.hasPrefix(prefix) }
        .compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0) { $0 + Int($1) }
}

import Foundation
import Imaging

/// Renders the sample's images (photos up to 4096x3072, avatars, video posters) and a
/// small MP4 container for the video, all deterministic, on every core.
public enum DemoAssets {
    /// Bump when SceneRenderer's output changes.
    static let rendererVersion = 2

    /// Renders every asset, or reads it from `directory` when an earlier demo run saved
    /// it there (rendering takes seconds; reading, milliseconds). Files are named by
    /// key under a versioned folder, so a change of renderer never reuses stale images.
    ///
    /// `shrink` draws the photos at 1/`shrink` of their width and height, while the posts
    /// still state their full size, as when a network serves a smaller rendition. A run
    /// that needs a filled cache rather than the sample's full size (the test suite's
    /// bucket tests) then derives a sixteenth of the pixels at 4.
    public static func render(
        _ assets: [SampleAsset], quality: Int = 85, directory: URL? = nil, shrink: Int = 1
    ) throws -> [String: DemoBody] {
        let shrink = max(1, shrink)
        let name = "origin-v\(rendererVersion)-q\(quality)" + (shrink > 1 ? "-shrink\(shrink)" : "")
        let folder = directory?.appendingPathComponent(name, isDirectory: true)
        if let folder { try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        let slots = ResultSlots(count: assets.count)
        DispatchQueue.concurrentPerform(iterations: assets.count) { i in
            let a = assets[i]
            let type = a.kind == .video ? "video/mp4" : "image/jpeg"
            let file = folder?.appendingPathComponent("\(a.key).\(a.kind == .video ? "mp4" : "jpg")")
            if let file, let saved = try? Data(contentsOf: file), !saved.isEmpty {
                slots.set(i, .success(DemoBody(bytes: [UInt8](saved), contentType: type)))
                return
            }
            let result = Result { try body(for: a.shrunk(by: shrink), quality: quality) }
            if let file, case let .success(b) = result { try? Data(b.bytes).write(to: file, options: .atomic) }
            slots.set(i, result)
        }
        var out: [String: DemoBody] = [:]
        for (i, a) in assets.enumerated() {
            switch slots.get(i) {
            case let .success(b): out[a.key] = b
            case let .failure(e): throw DemoError.renderFailed("\(a.key): \(e)")
            case nil: throw DemoError.renderFailed("\(a.key): not rendered")
            }
        }
        return out
    }

    static func body(for a: SampleAsset, quality: Int) throws -> DemoBody {
        switch a.kind {
        case .video:
            return DemoBody(bytes: sampleMP4(seed: a.seed), contentType: "video/mp4")
        case .avatar:
            let img = SceneRenderer.render(width: a.width, height: a.height, seed: a.seed, style: .portrait)
            return DemoBody(bytes: try JPEGEncoder.encode(img, quality: quality), contentType: "image/jpeg")
        case .poster:
            let img = SceneRenderer.render(width: a.width, height: a.height, seed: a.seed, style: .poster)
            return DemoBody(bytes: try JPEGEncoder.encode(img, quality: quality), contentType: "image/jpeg")
        case .photo:
            let style: SceneRenderer.Style = a.seed % 2 == 0 ? .landscape : .fractal
            if let first = a.repostOf, first.count == 2 {
                let original = SceneRenderer.render(width: first[0], height: first[1], seed: a.seed, style: style)
                let copy = try Resampler.resize(original, width: a.width, height: a.height)
                return DemoBody(bytes: try JPEGEncoder.encode(copy, quality: 70), contentType: "image/jpeg")
            }
            let img = SceneRenderer.render(width: a.width, height: a.height, seed: a.seed, style: style)
            return DemoBody(bytes: try JPEGEncoder.encode(img, quality: quality, progressive: a.seed % 3 == 0),
                            contentType: "image/jpeg")
        }
    }

    /// An ISO base media file with `ftyp` and an empty `moov`-less `free` box: enough
    /// for content sniffing and for players to recognise the container; the demo has
    /// no video encoder and does not pretend to.
    static func sampleMP4(seed: UInt64) -> [UInt8] {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + payload.count)
            return withUnsafeBytes(of: size.bigEndian, Array.init) + Array(type.utf8) + payload
        }
        let ftyp = box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isomiso2mp41".utf8))
        var filler = [UInt8](repeating: 0, count: 4096)
        var x = seed | 1
        for i in filler.indices { x ^= x << 13; x ^= x >> 7; x ^= x << 17; filler[i] = UInt8(truncatingIfNeeded: x) }
        return ftyp + box("free", filler)
    }
}

/// Per-index result slots written from `concurrentPerform`; each index is written by
/// exactly one iteration and read only after all finished.
private final class ResultSlots: @unchecked Sendable {
    private var items: [Result<DemoBody, any Error>?]
    private let lock = NSLock()
    init(count: Int) { items = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<DemoBody, any Error>) { lock.withLock { items[i] = r } }
    func get(_ i: Int) -> Result<DemoBody, any Error>? { lock.withLock { items[i] } }
}

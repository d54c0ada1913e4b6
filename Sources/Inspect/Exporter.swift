import Catalog
import BlobStore
import Foundation
import Imaging
import CacheCore

/// `tweetcache export`: the originals of tweets' media copied (or hard-linked) out of
/// the content-addressed store under names people can read.
public struct Exporter: Sendable {
    public static let defaultTemplate = "{screen_name}_{tweet_id}_{n}.{ext}"

    public struct Options: Sendable {
        public var tag: String?
        public var user: String?
        /// Words the posts must hold (``PostFilter/text``).
        public var text: String?
        public var out: URL
        public var template: String = Exporter.defaultTemplate
        public var link = false
        /// Static zoom trees to write beside the files, for hosting without
        /// `tweetcache serve`: Deep Zoom at `dzi/<sha256>.dzi` (+ `_files/`),
        /// IIIF level 0 at `iiif/3/<sha256>/info.json` (+ its tree), the same URL
        /// paths the server answers, with the same tile bytes as the image's pack.
        public var tiles: Set<PyramidLayout> = []
        /// The URL `iiif/3` will be served at (IIIF ids must be absolute).
        public var iiifBase = "http://127.0.0.1:8080/iiif/3"

        public init(out: URL) { self.out = out }
    }

    public struct Item: Sendable, Codable, Equatable {
        public var sha256: String
        public var tweetID: String
        public var file: String
        /// `copied`, `linked`, `exists` (same bytes already there) or `missing`.
        public var action: String

        enum CodingKeys: String, CodingKey {
            case sha256, file, action
            case tweetID = "tweet_id"
        }
    }

    let snapshot: CacheSnapshot
    let options: Options

    public init(snapshot: CacheSnapshot, options: Options) throws(InspectError) {
        try Self.validate(template: options.template)
        self.snapshot = snapshot
        self.options = options
    }

    /// Placeholders: {screen_name} {tweet_id} {n} {ext} {media_id} {sha256} {date}.
    public static func validate(template: String) throws(InspectError) {
        let known: Set<String> = ["screen_name", "tweet_id", "n", "ext", "media_id", "sha256", "date"]
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { throw .invalid("file name template: unclosed '{' in \(template)") }
            let key = String(rest[rest.index(after: open)..<close])
            guard known.contains(key) else {
                throw .invalid("file name template: unknown placeholder {\(key)} (known: \(known.sorted().map { "{\($0)}" }.joined(separator: " ")))")
            }
            rest = rest[rest.index(after: close)...]
        }
        guard template.contains("{sha256}") || (template.contains("{tweet_id}") && template.contains("{n}"))
                || template.contains("{media_id}") else {
            throw .invalid("the file name template must tell files apart: use {tweet_id} and {n}, {media_id} or {sha256}")
        }
    }

    /// A file name from the template; every value is made safe (no `/`, no leading
    /// dot, no control characters), since screen names and ids come from strangers.
    public static func name(template: String, values: [String: String]) -> String {
        var out = template
        for (key, value) in values { out = out.replacingOccurrences(of: "{\(key)}", with: safe(value)) }
        out = safe(out)
        while out.hasPrefix(".") { out.removeFirst() }
        return out.isEmpty ? "unnamed" : String(out.prefix(200))
    }

    static func safe(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.map { c in
            c == "/" || c == "\\" || c == "\0" || c.properties.generalCategory == .control ? "_" : c
        }))
    }

    /// `progress` counts the files placed, then the images whose zoom trees are written.
    public func run(progress: WorkProgress? = nil) throws(InspectError) -> [Item] {
        do {
            try FileManager.default.createDirectory(at: options.out, withIntermediateDirectories: true)
        } catch {
            throw .io("cannot create \(options.out.path): \((error as NSError).localizedDescription)")
        }
        var items: [Item] = []
        var names = DistinctNames()
        let store = snapshot.store
        let dateFormat = DateFormatter()
        dateFormat.locale = Locale(identifier: "en_US_POSIX")
        dateFormat.timeZone = TimeZone(identifier: "UTC")
        dateFormat.dateFormat = "yyyyMMdd"
        // Oldest first, as the files were named before the catalog, a page of posts at
        // a time.
        do {
            try snapshot.catalog.forEachPost(PostFilter(tag: options.tag, user: options.user, text: options.text), oldestFirst: true) { tweet in
                for (i, media) in tweet.media.enumerated() {
                    guard let sha = media.sha256, let hash = BlobHash(hex: sha) else { continue }
                    let source = store.path(for: hash)
                    let ext = Self.fileExtension(source, contentType: media.contentType)
                    let wanted = Self.name(template: options.template, values: [
                        "screen_name": tweet.author.screenName, "tweet_id": tweet.id, "n": "\(i + 1)", "ext": ext,
                        "media_id": media.id, "sha256": sha, "date": tweet.createdAt.map { dateFormat.string(from: $0) } ?? "undated",
                    ])
                    // A name another file of this export took (two networks' posts with one
                    // id, names that differ only in what `safe` replaced) gets a suffix: a
                    // file is never replaced by another of the same export.
                    let (name, fresh) = names.claim(wanted, for: sha)
                    let target = options.out.appendingPathComponent(name)
                    items.append(Item(sha256: sha, tweetID: tweet.id, file: target.path,
                                      action: fresh ? place(source, at: target) : "exists"))
                    progress?.advance(by: 1)
                }
            }
        } catch {
            throw .cache("\(error)")
        }
        if !options.tiles.isEmpty {
            var seen = Set<String>()
            let images = Set(items.filter { $0.action != "missing" }.map(\.sha256)).count
            var written = 0
            for item in items where item.action != "missing" && seen.insert(item.sha256).inserted {
                guard let hash = BlobHash(hex: item.sha256) else { continue }
                written += 1
                progress?.setPhase("zoom trees \(written) of \(images)")
                items.append(Item(sha256: item.sha256, tweetID: item.tweetID, file: trees(hash), action: tree(hash)))
            }
        }
        return items
    }

    /// Where an image's static trees go (the Deep Zoom descriptor when written, else `info.json`).
    private func trees(_ hash: BlobHash) -> String {
        options.tiles.contains(.deepZoom)
            ? options.out.appendingPathComponent("dzi/\(hash.hex).dzi").path
            : options.out.appendingPathComponent("iiif/3/\(hash.hex)/info.json").path
    }

    /// Writes the static trees of one image with the tile size, overlap and
    /// quality of its pack (so the tiles are the pack's bytes; 256, 0 and 85
    /// without one): `tiles`, or why not.
    private func tree(_ hash: BlobHash) -> String {
        var tileOptions = TilePyramidOptions(deepZoomName: hash.hex)
        let pyramid = DerivedRepair.existingPyramid(hash, store: snapshot.store)
        if let pyramid {
            tileOptions.tileSize = pyramid.tileSize
            tileOptions.overlap = pyramid.overlap
            tileOptions.quality = pyramid.quality
        }
        tileOptions.iiifID = "\(options.iiifBase.trimmingCharacters(in: CharacterSet(charactersIn: "/")))/\(hash.hex)"
        var outputs: [PyramidLayout: URL] = [:]
        if options.tiles.contains(.deepZoom) { outputs[.deepZoom] = options.out.appendingPathComponent("dzi", isDirectory: true) }
        if options.tiles.contains(.iiif3) {
            outputs[.iiif3] = options.out.appendingPathComponent("iiif/3/\(hash.hex)", isDirectory: true)
        }
        do {
            let image = try ImageDecoder.decode(try snapshot.store.read(hash))
            // The pack's tile format; without one, PNG where the image has alpha.
            tileOptions.format = pyramid?.format ?? .suited(to: image)
            _ = try TilePyramidBuilder.build(image: image, outputs: outputs, options: tileOptions)
            return "tiles"
        } catch {
            return "failed: \(error)"
        }
    }

    private func place(_ source: URL, at target: URL) -> String {
        let fm = FileManager.default
        guard fm.fileExists(atPath: source.path) else { return "missing" }
        if fm.fileExists(atPath: target.path) {
            if fm.contentsEqual(atPath: source.path, andPath: target.path) { return "exists" }
            try? fm.removeItem(at: target)
        }
        if options.link, link(source.path, target.path) == 0 { return "linked" }
        do {
            try fm.copyItem(at: source, to: target)
            return "copied"
        } catch {
            return "failed: \((error as NSError).localizedDescription)"
        }
    }

    static func fileExtension(_ file: URL, contentType: String?) -> String {
        if let handle = try? FileHandle(forReadingFrom: file) {
            defer { try? handle.close() }
            if let head = try? handle.read(upToCount: 16), let format = ImageFormat.sniff([UInt8](head)) {
                return format.fileExtension
            }
        }
        switch contentType {
        case "video/mp4": return "mp4"
        case "image/png": return "png"
        case "image/gif": return "gif"
        case "image/webp": return "webp"
        default: return "jpg"
        }
    }
}

/// File names handed out once each: a name asked for again for other content gets
/// `-2`, `-3`, … before its extension; asked for again for the same content, it is
/// the same file.
struct DistinctNames {
    private var owners: [String: String] = [:]

    /// The name to use for `content`, and whether it is new to this set (false: the
    /// same content already has it).
    mutating func claim(_ name: String, for content: String) -> (name: String, fresh: Bool) {
        var candidate = name
        var n = 1
        while let owner = owners[candidate] {
            if owner == content { return (candidate, false) }
            n += 1
            candidate = Self.suffixed(name, n)
        }
        owners[candidate] = content
        return (candidate, true)
    }

    static func suffixed(_ name: String, _ n: Int) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "\(name)-\(n)" }
        return "\(name[..<dot])-\(n)\(name[dot...])"
    }
}

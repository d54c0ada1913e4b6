import Catalog
public import BlobStore
import Foundation
import Imaging
import CacheCore

/// `tweetcache info HASH|URL`: everything known about one cached image.
public struct ImageDetails: Sendable, Codable, Equatable {
    public struct Derived: Sendable, Codable, Equatable {
        public var kind: DerivedKind
        public var size: String
        public var path: String
        public var width: Int?
        public var height: Int?
        public var bytes: Int?
        public var present: Bool
    }

    public var sha256: String
    public var path: String
    public var present: Bool
    public var bytes: Int?
    public var format: String?
    public var contentType: String?
    public var width: Int?
    public var height: Int?
    /// EXIF orientation 1-8 (JPEG), 1 when there is none.
    public var orientation: Int?
    /// Frames of an animated GIF or WebP (derived files show the first); nil for a still image.
    public var frames: Int?
    /// What the file says about its colours and what decoding does with it:
    /// "Display P3 (ICC profile, converted to sRGB)", or why a profile is ignored.
    public var colour: String?
    public var kind: ImageKind
    public var derived: [Derived]
    public var urls: [String]
    public var references: [ImageReference]
    public var decodeError: String?
    /// What is wrong with an image that is shown all the same, as browsers show it
    /// (``ImageDamage``): from the index, or found by decoding it now.
    public var decodeWarning: String?
    /// The PDQ perceptual hash the manifests gave this photo, and its quality.
    public var pdq: String?
    public var pdqQuality: Int?
    /// Other cached photos within PDQ's match distance, nearest first.
    public var nearDuplicates: [NearDuplicate]

    enum CodingKeys: String, CodingKey {
        case sha256, path, present, bytes, format, width, height, orientation, frames, colour, kind, derived, urls, references, pdq
        case contentType = "content_type"
        case decodeError = "decode_error"
        case decodeWarning = "decode_warning"
        case pdqQuality = "pdq_quality"
        case nearDuplicates = "near_duplicates"
    }

    public init(hash: BlobHash, snapshot: CacheSnapshot, duplicates: DuplicateFinder? = nil) {
        let file = snapshot.store.path(for: hash)
        sha256 = hash.hex
        path = file.path
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? nil
        present = size != nil
        let record = try? snapshot.index.blob(hash)
        bytes = size ?? record?.size
        contentType = record?.contentType
        width = record?.width
        height = record?.height
        references = snapshot.references(to: hash)
        let signature = try? snapshot.catalog.pdqSignature(of: hash.hex)
        pdq = signature?.hash.hex
        pdqQuality = signature?.quality
        nearDuplicates = (duplicates ?? DuplicateFinder(catalog: snapshot.catalog)).nearDuplicates(of: hash.hex)
        kind = references.map(\.kind).min() ?? .unreferenced
        let urlRecords = (try? snapshot.index.urls(for: hash)) ?? []
        contentType = contentType ?? urlRecords.first?.contentType
        var allURLs = Set(urlRecords.map(\.url))
        allURLs.formUnion(references.map(\.url))
        urls = allURLs.sorted()
        let files = snapshot.derivedFiles
        var rows = ((try? snapshot.index.derived(for: hash)) ?? []).map { d in
            Derived(kind: d.kind, size: d.sizeParameter, path: d.path, width: d.width, height: d.height, bytes: d.bytes,
                    present: FileManager.default.fileExists(atPath: files.url(d.path).path))
        }
        // A pack the tile server made on request has no index row: show it all the same.
        let pack = CacheLayout.pack(hash)
        if !rows.contains(where: { $0.path == pack }),
           let size = (try? FileManager.default.attributesOfItem(atPath: files.url(pack).path))?[.size] as? Int {
            rows.append(Derived(kind: .pack, size: "", path: pack, width: nil, height: nil, bytes: size, present: true))
        }
        derived = rows
        if present, let head = Self.head(of: file) {
            if let sniffed = ImageFormat.sniff(head) { format = sniffed.description }
            do {
                let info = try ImageDecoder.info(of: head)
                width = info.displayWidth
                height = info.displayHeight
                orientation = info.orientation.rawValue
                frames = info.frames > 1 ? info.frames : nil
                if let whole = try? [UInt8](Data(contentsOf: file)) {
                    colour = (try? ImageDecoder.colorReport(of: whole))?.summary
                    // Damage shows only by decoding; a JPEG at 1/8 scale still reads every byte.
                    decodeWarning = record?.decodeWarning ?? (try? ImageDecoder.decodeReporting(
                        whole, options: DecodeOptions(scaleDenominator: 8, applyOrientation: false)))?.damage?.description
                }
            } catch {
                decodeError = String(describing: error)
            }
        }
    }

    /// Headers sit in the first kilobytes, but EXIF can be 64 KB; read up to 256 KB
    /// and retry with the whole file if that was not enough.
    static func head(of file: URL) -> [UInt8]? {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 256 << 10) else { return nil }
        let bytes = [UInt8](data)
        if bytes.count == 256 << 10, (try? ImageDecoder.info(of: bytes)) == nil,
           let all = try? Data(contentsOf: file) { return [UInt8](all) }
        return bytes
    }

    public func text(style: Style) -> String {
        var lines: [String] = []
        func row(_ label: String, _ value: String) { lines.append(style.paint(label.padding(toLength: 12, withPad: " ", startingAt: 0), .dim) + value) }
        row("sha256", sha256)
        row("path", path + (present ? "" : style.paint("  (missing)", .warning)))
        if let bytes { row("bytes", "\(bytes) (\(ByteCount.format(bytes)))") }
        if let format { row("format", format + (contentType.map { " (\($0))" } ?? "")) }
        if let width, let height { row("dimensions", "\(width)x\(height)") }
        if let orientation { row("orientation", "\(orientation)\(orientation == 1 ? " (upright)" : "")") }
        if let frames { row("frames", "\(frames) (thumbnails and tiles show the first)") }
        if let colour { row("colour", colour) }
        row("kind", kind.rawValue)
        if let decodeError { row("decode", style.paint(decodeError, .warning)) }
        if let decodeWarning { row("damage", style.paint(decodeWarning, .warning)) }
        if let pdq, let pdqQuality {
            row("pdq", pdq + style.paint(" quality \(pdqQuality)\(pdqQuality < 50 ? " (too flat to match)" : "")", .dim))
        }
        if !derived.isEmpty {
            lines.append("Derived")
            for d in derived {
                let dims = d.width.flatMap { w in d.height.map { "\(w)x\($0)" } } ?? "?"
                let kindName = d.kind == .thumbnail ? "thumb \(d.size)" : "\(d.kind) tiles \(d.size)"
                let bytes = d.bytes.map { ByteCount.format($0) } ?? "?"
                lines.append("  \(kindName.padding(toLength: 16, withPad: " ", startingAt: 0)) \(dims.padding(toLength: 10, withPad: " ", startingAt: 0)) \(bytes.padding(toLength: 9, withPad: " ", startingAt: 0)) \(d.path)\(d.present ? "" : style.paint("  (missing)", .warning))")
            }
        }
        if !urls.isEmpty {
            lines.append("URLs")
            lines += urls.map { "  " + $0 }
        }
        if !references.isEmpty {
            lines.append("Tweets")
            for r in references {
                let position = r.position.map { " #\($0)" } ?? ""
                lines.append("  \(r.tweetID) @\(r.screenName) \(r.kind.rawValue)\(position)")
            }
        }
        if let summary = DuplicateFinder.summary(nearDuplicates) {
            lines.append(summary.prefix(1).uppercased() + summary.dropFirst())
            lines += DuplicateFinder.lines(nearDuplicates, style: style)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

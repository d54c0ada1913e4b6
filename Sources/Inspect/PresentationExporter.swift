import Catalog
import BlobStore
import Foundation
import CacheCore

/// `tweetcache export --iiif-presentation DIR`: the tile server's IIIF Presentation
/// documents as files, for any static web server. DIR mirrors
/// `/iiif/presentation/` (`collection.json`, `search/…`, `hashtag/…`, `user/…`,
/// `run/…`), plus the thumbnails the documents name (`thumb/<sha256>/<size>.jpg`),
/// copied from the cache. The Image API services they point at are the static
/// level-0 trees `export --tiles iiif3` writes, at `imageService`.
public struct PresentationExporter: Sendable {
    public struct Options: Sendable {
        public var out: URL
        /// The URL DIR will be served at: documents' ids are absolute.
        public var base: String
        /// The URL of the exported `iiif/3` folder.
        public var imageService: String

        public init(out: URL, base: String, imageService: String) {
            self.out = out
            self.base = base
            self.imageService = imageService
        }
    }

    public let snapshot: CacheSnapshot
    public let options: Options

    public init(snapshot: CacheSnapshot, options: Options) {
        self.snapshot = snapshot
        self.options = options
    }

    /// Writes every document; returns the files written, relative to `out`.
    public func run() throws(InspectError) -> [String] {
        for url in [options.base, options.imageService] {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil else {
                throw .invalid("\(url) is not an http(s) URL")
            }
        }
        let base = options.base.hasSuffix("/") ? String(options.base.dropLast()) : options.base
        let links = PresentationBuilder.Links(
            base: base, imageService: options.imageService, imageServiceProfile: "level0",
            thumbnail: { sha, thumbnail in "\(base)/\(Self.thumbnailPath(sha, thumbnail))" })
        let builder = PresentationBuilder(catalog: snapshot.catalog, links: links)
        var written: [String] = []
        func write(_ document: PresentationDocument, _ target: PresentationTarget) throws(InspectError) {
            let file = options.out.appendingPathComponent(target.path)
            do {
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try document.encoded().write(to: file, options: .atomic)
            } catch {
                throw .io("cannot write \(file.path): \((error as NSError).localizedDescription)")
            }
            written.append(target.path)
        }
        let targets: [PresentationTarget]
        let runs: [ManifestFileInfo]
        do {
            try write(.collection(builder.collection()), .collection)
            targets = try builder.targets()
            runs = try snapshot.catalog.runs()
        } catch let error as InspectError {
            throw error
        } catch {
            throw .cache("\(error)")
        }
        for target in targets {
            // Every page of a long listing, one at a time, and the Collection of its pages.
            do {
                let pages = try builder.pages(of: target)
                for n in 1...max(1, pages) {
                    let page = n == 1 ? target : .page(target, n)
                    if let manifest = try builder.manifest(page) { try write(.manifest(manifest), page) }
                }
                if let collection = try builder.pagesCollection(target) { try write(.collection(collection), .pages(target)) }
            } catch let error as InspectError {
                throw error
            } catch {
                throw .cache("\(error)")
            }
        }
        for info in runs {
            // Each result file a page at a time, from the catalog's pages of the run.
            let stamp = PresentationBuilder.stamp(of: info.path)
            do {
                guard let collection = try builder.runCollection(stamp: stamp),
                      let outline = try snapshot.catalog.runOutline(path: info.path) else { continue }
                try write(.collection(collection), .run(stamp))
                for (index, file) in outline.files.enumerated() where file.pages > 0 {
                    for n in 1...file.pages {
                        if let manifest = try builder.runFileManifest(stamp: stamp, index: index, page: n, outline: outline) {
                            try write(.manifest(manifest), n == 1 ? .runFile(stamp, index) : .runFilePage(stamp, index, n))
                        }
                    }
                    if let pages = try builder.runFilePages(stamp: stamp, index: index) { try write(.collection(pages), .runFilePages(stamp, index)) }
                }
            } catch let error as InspectError {
                throw error
            } catch {
                throw .cache("\(error)")
            }
        }
        // The thumbnails the documents name, copied (never linked: the export must
        // outlive a cache clean-up).
        var copied = Set<String>()
        do {
            // A page of posts at a time, each photo's smallest thumbnail copied once.
            try snapshot.catalog.forEachPost { tweet in
                for media in tweet.media {
                    guard PresentationBuilder.servable(media), let sha = media.sha256,
                          let thumbnail = media.thumbnails?.min(by: { $0.size < $1.size }),
                          !thumbnail.path.hasPrefix("/"), !thumbnail.path.split(separator: "/").contains("..")
                    else { continue }
                    let relative = Self.thumbnailPath(sha, thumbnail)
                    guard copied.insert(relative).inserted else { continue }
                    let target = options.out.appendingPathComponent(relative)
                    do {
                        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                        try? FileManager.default.removeItem(at: target)
                        try FileManager.default.copyItem(at: snapshot.root.appendingPathComponent(thumbnail.path), to: target)
                        written.append(relative)
                    } catch {
                        // A thumbnail gone from the cache leaves its document's link dangling, not the export failed.
                        continue
                    }
                }
            }
        } catch {
            throw .cache("\(error)")
        }
        return written
    }

    static func thumbnailPath(_ sha: String, _ thumbnail: ThumbnailRef) -> String {
        "thumb/\(sha)/\(thumbnail.size).\(thumbnail.path.hasSuffix(".png") ? "png" : "jpg")"
    }
}

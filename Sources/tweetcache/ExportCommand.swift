import Catalog
import ArgumentParser
import BlobStore
import Foundation
import Imaging
import Inspect
import Pipeline

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Copy (or hard-link) tweets' original media out of the cache under readable names.",
        discussion: """
            Placeholders: {screen_name} {tweet_id} {n} {ext} {media_id} {sha256} {date}. With \
            --store, the bucket's runs are synced first and the files of the tweets exported \
            that the cache directory lacks are copied from the bucket into it.
            """)

    @Option(name: .long, help: "Only tweets with this hashtag.")
    var tag: String?

    @Option(name: .long, help: "Only tweets by this user.")
    var user: String?

    @Option(name: .long, help: ArgumentHelp("Only tweets whose text, author's name or handle, or hashtags hold these words: every word, the last also as the start of one (full-text search, as the web page's search box).", valueName: "words"))
    var text: String?

    @Option(name: .long, help: ArgumentHelp("Directory to write the media to (created if needed).", valueName: "DIR"))
    var out: String?

    @Option(name: .long, help: ArgumentHelp("File name template.", valueName: "TEMPLATE"))
    var name: String = Exporter.defaultTemplate

    @Flag(name: .long, help: "Hard-link instead of copying (same file system only; copies otherwise).")
    var link = false

    @Option(name: .long, help: ArgumentHelp(
        "Also write static zoom trees of the exported images, for any web server: dz (dzi/<sha256>.dzi), iiif3 (iiif/3/<sha256>/), or both.",
        valueName: "dz|iiif3|both"))
    var tiles: ExportTiles?

    @Option(name: .long, help: ArgumentHelp("URL the exported iiif/3 folder will be served at (IIIF ids are absolute).", valueName: "URL"))
    var iiifBase: String = "http://127.0.0.1:8080/iiif/3"

    @Option(name: .long, help: ArgumentHelp(
        "Also write the IIIF Presentation 3 documents (collection.json, a Manifest per search, hashtag, user and run's result file) and their thumbnails, for static hosting.",
        valueName: "DIR"))
    var iiifPresentation: String?

    @Option(name: .long, help: ArgumentHelp("URL the --iiif-presentation folder will be served at.", valueName: "URL"))
    var presentationBase: String = "http://127.0.0.1:8080/iiif/presentation"

    @OptionGroup var options: InspectOptions

    @OptionGroup var storage: StoreOptions

    func validate() throws {
        do { try Exporter.validate(template: name) } catch { throw ValidationError("--name: \(error.description)") }
        if out == nil, iiifPresentation == nil { throw ValidationError("give --out DIR, --iiif-presentation DIR, or both") }
        if out == nil, tiles != nil { throw ValidationError("--tiles writes beside the media: give --out DIR") }
    }

    func run() async throws {
        try FileManager.default.createDirectory(at: options.cacheURL, withIntermediateDirectories: true)
        // Over a bucket: the files of the tweets exported (all of them for the
        // Presentation documents, which list every run).
        try await storage.hydrate(cacheRoot: options.cacheURL) { [tag, user, text, iiifPresentation] layout in
            guard iiifPresentation == nil, let snapshot = try? CacheSnapshot(root: layout.root) else {
                return BucketHydrator.paths(manifestsIn: layout)
            }
            // A page of posts at a time; each file once (posts share avatars and photos).
            var paths: [String] = []
            var seen = Set<String>()
            try? snapshot.catalog.forEachPost(PostFilter(tag: tag, user: user, text: text)) { post in
                paths += BucketHydrator.paths(for: [post]).filter { seen.insert($0).inserted }
            }
            return paths
        }
        let snapshot = try options.snapshot()
        if let iiifPresentation {
            let presentation = PresentationExporter(snapshot: snapshot, options: .init(
                out: URL(fileURLWithPath: iiifPresentation, isDirectory: true), base: presentationBase, imageService: iiifBase))
            let written: [String]
            do { written = try presentation.run() } catch { throw InspectFailure.exit(error) }
            if !options.json {
                let documents = written.filter { $0.hasSuffix(".json") }.count
                emit("wrote \(documents) IIIF Presentation document\(documents == 1 ? "" : "s") and \(written.count - documents) thumbnail\(written.count - documents == 1 ? "" : "s") to \(iiifPresentation)\n")
            }
        }
        guard let out else { return }
        var exportOptions = Exporter.Options(out: URL(fileURLWithPath: out, isDirectory: true))
        exportOptions.tag = tag
        exportOptions.user = user
        exportOptions.text = text
        exportOptions.template = name
        exportOptions.link = link
        exportOptions.tiles = Set(tiles?.layouts ?? [])
        exportOptions.iiifBase = iiifBase
        let items: [Exporter.Item]
        let progress = WorkProgress(unit: .items("files"))
        let display = WorkProgressDisplay("export", progress: progress, enabled: !options.json)
        do { items = try Exporter(snapshot: snapshot, options: exportOptions).run(progress: progress) } catch {
            display.finish()
            throw InspectFailure.exit(error)
        }
        display.finish()
        if options.json {
            print(try InspectJSON.string(items))
        } else {
            emit(items.map { "\($0.action.padding(toLength: 7, withPad: " ", startingAt: 0))  \($0.file)\n" }.joined())
            let counts = Dictionary(grouping: items, by: \.action).mapValues(\.count).sorted { $0.key < $1.key }
            emit("exported \(items.count) file\(items.count == 1 ? "" : "s")" + (counts.isEmpty ? "" : " (" + counts.map { "\($0.value) \($0.key)" }.joined(separator: ", ") + ")") + " to \(out)\n")
        }
        if items.contains(where: { $0.action == "missing" || $0.action.hasPrefix("failed") }) { throw ExitCode(1) }
    }
}

/// `export --tiles`: which static zoom trees to write beside the media.
enum ExportTiles: String, ExpressibleByArgument, CaseIterable {
    case dz, iiif3, both

    var layouts: [PyramidLayout] {
        switch self {
        case .dz: [.deepZoom]
        case .iiif3: [.iiif3]
        case .both: [.deepZoom, .iiif3]
        }
    }
}

import Foundation
import BlobStore
import MediaTypes
import TweetModel

/// Builds the IIIF Presentation 3 documents of a cache from its manifests, for the
/// tile server (`/iiif/presentation/…`) and for `tweetcache export
/// --iiif-presentation` alike, so the two cannot drift apart.
///
/// Only photos the Image API can serve become Canvases: a cached image in a format TweetCache decodes whose
/// pixel size is known. A Manifest needs at least one Canvas, so a search, tag or
/// user without such a photo has no Manifest (nil) and is left out of the Collection.
public struct PresentationBuilder: Sendable {
    /// Where the documents and the images they point at are served.
    public struct Links: Sendable {
        /// The presentation base: `<base>/collection.json` is the top Collection.
        public var base: String
        /// The Image API 3 base: `<imageService>/<sha256>` is an image's service.
        public var imageService: String
        /// A thumbnail's URL from the image's hash and the cached thumbnail.
        public var thumbnail: @Sendable (_ sha256: String, _ thumbnail: ThumbnailRef) -> String
        /// `level2` for the tile server (any region and size); `level0` for the static
        /// trees of an export, which hold only their tiles and listed sizes.
        public var imageServiceProfile: String
        /// The viewer's page for a hashtag or user, when there is a viewer.
        public var viewer: (@Sendable (_ target: PresentationTarget) -> String?)?

        public init(base: String, imageService: String, imageServiceProfile: String = "level2",
                    thumbnail: @escaping @Sendable (String, ThumbnailRef) -> String,
                    viewer: (@Sendable (PresentationTarget) -> String?)? = nil) {
            self.imageServiceProfile = imageServiceProfile
            self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
            self.imageService = imageService.hasSuffix("/") ? String(imageService.dropLast()) : imageService
            self.thumbnail = thumbnail
            self.viewer = viewer
        }
    }

    public let catalog: PostCatalog
    public let links: Links
    /// Posts (with photos) per Manifest of a search, hashtag or user.
    public let pageSize: Int

    public init(catalog: PostCatalog, links: Links, pageSize: Int = 500) {
        self.catalog = catalog
        self.links = links
        self.pageSize = max(1, pageSize)
    }

    public func url(_ target: PresentationTarget) -> String { "\(links.base)/\(target.path)" }

    /// Every search with photos, by query; then every run, newest first, as a
    /// Collection of its result files.
    public func collection() throws(CatalogError) -> PresentationCollection {
        var items: [PresentationReference] = []
        for search in try catalog.searches() where search.withPhotos > 0 {
            let first = try catalog.posts(PostFilter(query: search.query), limit: 100)
            // A paged search is listed by the Collection of its pages: viewers (Mirador,
            // Universal Viewer) do not follow a Manifest's `partOf`, so page 1 alone
            // would leave the others unreachable from here.
            let paged = try pages(of: .search(search.query)) > 1
            items.append(PresentationReference(
                id: url(paged ? .pages(.search(search.query)) : .search(search.query)), type: paged ? "Collection" : "Manifest",
                label: .en("Search: \(search.query)"), thumbnail: firstThumbnail(first)))
        }
        for run in try catalog.runs().reversed() {
            let stamp = Self.stamp(of: run.path)
            items.append(PresentationReference(
                id: url(.run(stamp)), type: "Collection",
                label: .en("Run of \(Self.iso(run.generatedAt)) (\(run.tweets) tweet\(run.tweets == 1 ? "" : "s"))"),
                thumbnail: nil))
        }
        return PresentationCollection(
            id: url(.collection), label: .en("TweetCache"),
            summary: .en("Photos of the cached tweets: a Manifest per search, and every run with its result files."),
            items: items)
    }

    /// Every search, hashtag and user that has a Manifest (at least one photo), in
    /// the order of the posts that first name them (newest first). Reads the posts a
    /// page at a time.
    public func targets() throws -> [PresentationTarget] {
        var seen = Set<PresentationTarget>()
        var result: [PresentationTarget] = []
        try catalog.forEachPost { tweet in
            guard Self.hasPhoto([tweet]) else { return }
            var candidates: [PresentationTarget] = [.user(tweet.author.screenName.lowercased())]
            if let query = tweet.query?.trimmingCharacters(in: .whitespacesAndNewlines), !query.isEmpty {
                candidates.append(.search(query))
            }
            candidates += tweet.entities.hashtags.map { .hashtag($0.tag.lowercased()) }
            for target in candidates where seen.insert(target).inserted { result.append(target) }
        }
        return result
    }

    /// The Manifest of a search, hashtag or user (its first page), or of one of its
    /// later pages; nil when there is no photo there. A page holds the photos of at
    /// most ``pageSize`` posts, newest first, so no document grows with the archive.
    public func manifest(_ target: PresentationTarget) throws -> PresentationManifest? {
        let listing: PresentationTarget, number: Int
        switch target {
        case .search, .hashtag, .user: (listing, number) = (target, 1)
        case let .page(base, n) where base.isListing && n >= 2: (listing, number) = (base, n)
        default: return nil
        }
        guard let (filter, label) = Self.listing(listing) else { return nil }
        let tweets = try catalog.posts(filter, offset: (number - 1) * pageSize, limit: pageSize)
        guard !tweets.isEmpty else { return nil }
        let pages = try pageCount(filter)
        guard var manifest = manifest(target, label: pages > 1 ? "\(label) (\(number) of \(pages))" : label, tweets: tweets) else {
            return nil
        }
        if pages > 1 { manifest.partOf = [PartOf(id: url(.pages(listing)))] }
        return manifest
    }

    /// How many Manifests a search, hashtag or user has (0 without photos).
    public func pages(of listing: PresentationTarget) throws(CatalogError) -> Int {
        guard let (filter, _) = Self.listing(listing) else { return 0 }
        return try pageCount(filter)
    }

    /// The Collection of a search's, hashtag's or user's pages; nil when it fits one Manifest.
    public func pagesCollection(_ listing: PresentationTarget) throws -> PresentationCollection? {
        guard let (filter, label) = Self.listing(listing) else { return nil }
        let pages = try pageCount(filter)
        guard pages > 1 else { return nil }
        return PresentationCollection(
            id: url(.pages(listing)), label: .en(label),
            summary: .en("\(try catalog.count(filter)) posts with photos, \(pageSize) a Manifest, newest first"),
            items: (1...pages).map { n in
                PresentationReference(id: url(n == 1 ? listing : .page(listing, n)), type: "Manifest",
                                      label: .en("\(label) (\(n) of \(pages))"), thumbnail: nil)
            })
    }

    private func pageCount(_ filter: PostFilter) throws(CatalogError) -> Int {
        (try catalog.count(filter) + pageSize - 1) / pageSize
    }

    /// The posts with a servable photo that a search, hashtag or user lists, and its label.
    private static func listing(_ target: PresentationTarget) -> (PostFilter, String)? {
        var filter: PostFilter
        let label: String
        switch target {
        case let .search(query):
            filter = PostFilter(query: query)
            label = "Search: \(query)"
        case let .hashtag(tag):
            filter = PostFilter(tag: tag)
            label = "#\(tag)"
        case let .user(name):
            filter = PostFilter(user: name)
            label = "@\(name)"
        default:
            return nil
        }
        filter.withPhotos = true
        return (filter, label)
    }

    /// One run's Collection: each result file that has photos, as its Manifest, or as
    /// the Collection of its pages when it has more than one (as the top Collection
    /// lists a paged search). Made from the catalog's outline of the run and the first
    /// post of each file, never from the whole manifest: a run of a million posts has
    /// its documents too. Nil when the catalog has no such run.
    public func runCollection(stamp: String) throws(CatalogError) -> PresentationCollection? {
        let path = try runPath(stamp)
        guard let run = try catalog.runOutline(path: path) else { return nil }
        let firsts = try catalog.runFirstPosts(path: path)
        var items: [PresentationReference] = []
        // A path named twice is one file: its first index has the posts.
        var firstIndex: [String: Int] = [:]
        for (index, file) in run.files.enumerated() where firstIndex[file.path] == nil { firstIndex[file.path] = index }
        for (index, file) in run.files.enumerated() where file.pages > 0 {
            let paged = file.pages > 1
            let first = firstIndex[file.path].flatMap { firsts[$0] }
            items.append(PresentationReference(
                id: url(paged ? .runFilePages(stamp, index) : .runFile(stamp, index)), type: paged ? "Collection" : "Manifest",
                label: .none(Self.fileLabel(file)), thumbnail: first.flatMap { firstThumbnail([$0]) }))
        }
        return PresentationCollection(
            id: url(.run(stamp)), label: .en("Run of \(Self.iso(run.generatedAt))"),
            summary: .en("\(run.files.count) result file\(run.files.count == 1 ? "" : "s"), \(run.tweets) tweet\(run.tweets == 1 ? "" : "s")"),
            items: items)
    }

    /// A page (from 1) of one result file of a run: the photos of at most
    /// ``PostCatalog/runPageSize`` of its posts, in file order, each read from its bytes
    /// in the manifest. Nil when there is no such file or page, or it has no photo.
    /// `outline` is the run's, when the caller has it (an export walking every page
    /// reads it once, not once a page).
    public func runFileManifest(stamp: String, index: Int, page number: Int = 1, outline: PostCatalog.RunOutline? = nil)
        throws(CatalogError) -> PresentationManifest?
    {
        let path = try runPath(stamp)
        var run = outline
        if run == nil { run = try catalog.runOutline(path: path) }
        guard number >= 1, let run, run.files.indices.contains(index) else { return nil }
        let file = run.files[index]
        guard number <= file.pages else { return nil }
        let tweets = try catalog.runPage(path: path, file: index, page: number - 1)
        let label = Self.fileLabel(file)
        let target: PresentationTarget = number == 1 ? .runFile(stamp, index) : .runFilePage(stamp, index, number)
        guard var manifest = manifest(target, label: file.pages > 1 ? "\(label) (\(number) of \(file.pages))" : label,
                                      tweets: tweets)
        else { return nil }
        if file.pages > 1 { manifest.partOf = [PartOf(id: url(.runFilePages(stamp, index)))] }
        return manifest
    }

    /// The Collection of a result file's pages; nil when it fits one Manifest.
    public func runFilePages(stamp: String, index: Int) throws(CatalogError) -> PresentationCollection? {
        guard let run = try catalog.runOutline(path: try runPath(stamp)), run.files.indices.contains(index) else { return nil }
        let file = run.files[index]
        guard file.pages > 1 else { return nil }
        let label = Self.fileLabel(file)
        return PresentationCollection(
            id: url(.runFilePages(stamp, index)), label: .none(label),
            summary: .en("\(file.postsWithPhotos) posts with photos, at most \(PostCatalog.runPageSize) a Manifest, in the file's order"),
            items: (1...file.pages).map { n in
                PresentationReference(id: url(n == 1 ? .runFile(stamp, index) : .runFilePage(stamp, index, n)), type: "Manifest",
                                      label: .none("\(label) (\(n) of \(file.pages))"), thumbnail: nil)
            })
    }

    /// `manifests/<stamp>.json.zst` (or `.json`, a run written before manifests were
    /// compressed): where the catalog knows a run by.
    func runPath(_ stamp: String) throws(CatalogError) -> String {
        try catalog.runPath(stamp: stamp) ?? CacheLayout.manifest(stamp + CacheKey.manifestSuffix)
    }

    // MARK: - Parts

    private func manifest(_ target: PresentationTarget, label: String, tweets: [ManifestTweet]) -> PresentationManifest? {
        let id = url(target)
        let items = canvases(of: tweets, in: id)
        guard !items.isEmpty else { return nil }
        // The posts the photos come from, counted alike whatever the Manifest gathers: a
        // run's result file holds posts without photos, a search's listing does not.
        let posting = tweets.filter { Self.hasPhoto([$0]) }
        let authors = Set(posting.map { $0.author.screenName.lowercased() }).count
        var manifest = PresentationManifest(
            id: id, label: .en(label),
            summary: .en("\(items.count) photo\(items.count == 1 ? "" : "s") from \(posting.count) post\(posting.count == 1 ? "" : "s") by \(authors) author\(authors == 1 ? "" : "s")"),
            metadata: nil, thumbnail: items.first?.thumbnail, homepage: nil, items: items)
        if let page = links.viewer?(target) {
            manifest.homepage = [Homepage(id: page, label: .en("\(label) in the TweetCache viewer"))]
        }
        return manifest
    }

    private func firstThumbnail(_ tweets: [ManifestTweet]) -> [ImageResource]? {
        for tweet in tweets {
            for media in tweet.media {
                if let sha = media.sha256, Self.servable(media), let thumbnail = thumbnail(sha, media) { return thumbnail }
            }
        }
        return nil
    }

    private func canvases(of tweets: [ManifestTweet], in manifestID: String) -> [Canvas] {
        let base = manifestID.hasSuffix("/manifest.json") ? String(manifestID.dropLast("/manifest.json".count)) : manifestID
        var result: [Canvas] = []
        for tweet in tweets {
            let photos = tweet.media.filter(Self.servable)
            for (index, media) in photos.enumerated() {
                guard let sha = media.sha256, let width = media.width, let height = media.height else { continue }
                let canvas = "\(base)/canvas/\(PresentationTarget.segment(tweet.id))/\(index + 1)"
                // Formats that may carry transparency keep it: PNG for PNG and GIF, WebP for WebP.
                let (format, type) = switch media.contentType {
                case "image/png", "image/gif": ("png", "image/png")
                case "image/webp": ("webp", "image/webp")
                default: ("jpg", "image/jpeg")
                }
                let body = ImageResource(
                    id: "\(links.imageService)/\(sha)/full/max/0/default.\(format)",
                    format: type, width: width, height: height,
                    service: [ImageService(id: "\(links.imageService)/\(sha)", profile: links.imageServiceProfile)])
                let page = Self.postURL(tweet)
                var text = tweet.text.replacingOccurrences(of: "\n", with: " ")
                if text.count > 140 { text = String(text.prefix(139)) + "…" }
                let label = photos.count > 1 ? "\(text) (\(index + 1)/\(photos.count))" : text
                var metadata = [MetadataEntry(label: .en("Author"), value: .none("\(tweet.author.name) (@\(tweet.author.screenName))"))]
                if let date = tweet.createdAt { metadata.append(MetadataEntry(label: .en("Date"), value: .none(Self.iso(date)))) }
                if let page { metadata.append(MetadataEntry(label: .en("Post"), value: .none(page))) }
                if let alt = media.altText, !alt.isEmpty { metadata.append(MetadataEntry(label: .en("Description"), value: .none(alt))) }
                result.append(Canvas(
                    id: canvas, label: .none(label.isEmpty ? "@\(tweet.author.screenName)" : label),
                    width: width, height: height, metadata: metadata, thumbnail: thumbnail(sha, media),
                    homepage: page.map { [Homepage(id: $0, label: .en("The post by @\(tweet.author.screenName)"))] },
                    items: [AnnotationPage(id: "\(canvas)/page", items: [
                        PaintingAnnotation(id: "\(canvas)/page/image", body: body, target: canvas),
                    ])]))
            }
        }
        return result
    }

    private func thumbnail(_ sha: String, _ media: ManifestTweet.Media) -> [ImageResource]? {
        guard let thumb = media.thumbnails?.min(by: { $0.size < $1.size }) else { return nil }
        return [ImageResource(id: links.thumbnail(sha, thumb), format: thumb.path.hasSuffix(".png") ? "image/png" : "image/jpeg",
                              width: thumb.width, height: thumb.height)]
    }

    /// Whether any of `tweets` would get a Canvas (what a Manifest needs), without making them.
    static func hasPhoto(_ tweets: [ManifestTweet]) -> Bool {
        tweets.contains { $0.media.contains(where: servable) }
    }

    /// A cached image of known size in a format TweetCache decodes: what the Image API service can serve.
    public static func servable(_ media: ManifestTweet.Media) -> Bool {
        servable(sha256: media.sha256, width: media.width, height: media.height, contentType: media.contentType)
    }

    static func servable(sha256: String?, width: Int?, height: Int?, contentType: String?) -> Bool {
        guard let sha = sha256, sha.utf8.count == 64, sha.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
              let width, let height, width > 0, height > 0 else { return false }
        return ContentKind(mimeType: contentType)?.isImage == true
    }

    /// The post's page on its network (``Network/postURL(id:handle:given:)``).
    static func postURL(_ tweet: ManifestTweet) -> String? {
        Network(manifestValue: tweet.network)?.postURL(id: tweet.id, handle: tweet.author.screenName, given: tweet.url)
    }

    static func fileLabel(_ file: PostCatalog.RunFile) -> String {
        let name = file.path.split(separator: "/").last.map(String.init) ?? file.path
        return file.query.map { "\(name): \($0)" } ?? name
    }

    /// `manifests/<stamp>.json.zst` (or `.json`) → `<stamp>`.
    public static func stamp(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return CacheKey.manifestStem(name).map(String.init) ?? name
    }

    /// `2018-10-10T20:19:24Z`; a format style, not a formatter made per Canvas.
    static func iso(_ date: Date) -> String { date.formatted(.iso8601) }
}

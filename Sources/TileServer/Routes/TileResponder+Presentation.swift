import Catalog
import BlobStore
import Foundation
import Hummingbird
import CacheCore

/// IIIF Presentation 3 (`/iiif/presentation/…`): the documents Mirador, Universal
/// Viewer and archives' tools open, built from the manifests by the same
/// ``PresentationBuilder`` as `tweetcache export --iiif-presentation`.
extension TileResponder {
    func presentation(_ target: PresentationTarget, request: Request) throws -> Reply {
        let builder = try presentationBuilder(request)
        let document: PresentationDocument
        let cacheControl = Reply.revalidate
        switch target {
        case .collection:
            document = .collection(try Self.answering { () throws(CatalogError) in try builder.collection() })
        case .search, .hashtag, .user, .page:
            guard let manifest = try Self.answering({ try builder.manifest(target) }) else {
                throw HTTPFailure.notFound("no cached photo for \(target.path)")
            }
            document = .manifest(manifest)
        case let .pages(listing):
            guard let collection = try Self.answering({ try builder.pagesCollection(listing) }) else {
                throw HTTPFailure.notFound("\(listing.path) is one Manifest, with no pages")
            }
            document = .collection(collection)
        case let .run(stamp):
            guard let collection = try Self.answering({ () throws(CatalogError) in try builder.runCollection(stamp: stamp) }) else {
                throw HTTPFailure.notFound("no run \(stamp)")
            }
            document = .collection(collection)
            // A run's documents change only when `forget` blanks posts out of it (the
            // forget watch then drops what is kept in memory): revalidated, not immutable.
        case let .runFile(stamp, index), let .runFilePage(stamp, index, _):
            var page = 1
            if case let .runFilePage(_, _, n) = target { page = n }
            guard let manifest = try Self.answering({ () throws(CatalogError) in
                try builder.runFileManifest(stamp: stamp, index: index, page: page)
            }) else {
                throw HTTPFailure.notFound("no page \(page) of result file \(index) with cached photos in run \(stamp)")
            }
            document = .manifest(manifest)
        case let .runFilePages(stamp, index):
            guard let collection = try Self.answering({ () throws(CatalogError) in
                try builder.runFilePages(stamp: stamp, index: index)
            }) else {
                throw HTTPFailure.notFound("result file \(index) of run \(stamp) is one Manifest, with no pages")
            }
            document = .collection(collection)
        }
        let body = try document.encoded()
        var hash = FNV1a()
        hash.add(body)
        return Reply(bytes: body, contentType: PresentationDocument.contentType,
                     etag: "\"p-\(String(hash.value, radix: 16))\"", cacheControl: cacheControl)
    }

    /// The documents' links: this server's Image API, thumbnails and viewer, at the
    /// same base as the IIIF image ids (the public URL, else the Host asked for).
    func presentationBuilder(_ request: Request) throws(HTTPFailure) -> PresentationBuilder {
        let imageService = iiifBase(request)
        let root = String(imageService.dropLast("/iiif/3".count))
        let links = PresentationBuilder.Links(
            base: root + "/iiif/presentation", imageService: imageService,
            thumbnail: { sha, thumbnail in "\(root)/thumb/\(sha)/\(thumbnail.size)" },
            viewer: { target in
                let query = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~@"))
                switch target {
                case let .hashtag(tag): return tag.addingPercentEncoding(withAllowedCharacters: query).map { "\(root)/?tag=\($0)" }
                case let .user(name): return name.addingPercentEncoding(withAllowedCharacters: query).map { "\(root)/?user=\($0)" }
                default: return nil
                }
            })
        return PresentationBuilder(catalog: try postCatalog(), links: links)
    }

    /// The catalog, up to date with the manifests; a catalog that cannot answer is
    /// the server's fault (500), said without its paths.
    func postCatalog() throws(HTTPFailure) -> PostCatalog {
        try Self.answering { () throws(CatalogError) in try catalog.catalog }
    }

    static func answering<T>(_ body: () throws -> T) throws(HTTPFailure) -> T {
        do {
            return try body()
        } catch let failure as HTTPFailure {
            throw failure
        } catch {
            throw HTTPFailure(status: 500, message: "the catalog could not answer; `tweetcache reindex` rebuilds it")
        }
    }
}

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
        var cacheControl = Reply.revalidate
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
            document = .collection(builder.runCollection(stamp: stamp, run: try run(stamp)))
            // A run's manifest file never changes once written.
            cacheControl = Reply.immutable
        case let .runFile(stamp, index):
            guard let manifest = builder.runFileManifest(stamp: stamp, index: index, run: try run(stamp)) else {
                throw HTTPFailure.notFound("no result file \(index) with cached photos in run \(stamp)")
            }
            document = .manifest(manifest)
            cacheControl = Reply.immutable
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

    /// A run's manifest, `manifests/<stamp>.json`, read below the cache root.
    private func run(_ stamp: String) throws -> Manifest {
        guard PresentationTarget.isPlain(stamp) else { throw HTTPFailure.notFound("no run \(stamp)") }
        let bytes: [UInt8]
        do {
            bytes = try files.read(CacheLayout.manifest(stamp + ".json"), limit: Manifest.largestReadWhole)
        } catch {
            throw HTTPFailure.notFound("no run \(stamp)")
        }
        guard let manifest = try? Manifest.decode(Data(bytes)) else {
            throw HTTPFailure.notFound("manifests/\(stamp).json is not a TweetCache manifest")
        }
        return manifest
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

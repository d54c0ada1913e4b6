import Foundation
import BlobStore

/// A post as the catalog's rows hold it: every key normalised, every hash parsed,
/// every count made, so the one thread that writes SQLite only binds and steps.
/// Made on the threads that read the manifest (``PostCatalog/PostReader``), not on the
/// writer's, whose work is the length of a big ingest.
struct PostRow: Sendable {
    var id: String
    var created: Double
    var idOrder: String
    /// The handle lower-cased, without `@`: how lists filter by user.
    var user: String
    var handle: String
    var name: String
    var text: String
    var query: String?
    /// Photos the Image API can serve.
    var photos: Int
    var network: String
    /// The result file it came from (``PostFacts/source``).
    var source: String?
    /// Hashtags and cashtags, once each: the key as stored (lower-cased, no `#`/`$`)
    /// and the first spelling seen.
    var tags: [(key: String, display: String)]
    /// The tags as the full-text index has them: their spellings, a space between.
    var tagText: String
    var references: [PostWriter.Reference]
    var signatures: [(sha256: BlobHash, signature: [UInt8], quality: Int)]

    init(_ post: PostFacts) {
        id = post.id
        created = PostOrder.created(post.createdAt)
        idOrder = PostOrder.idKey(post.id)
        user = PostFilter.normalise(post.author.screenName, dropping: PostFilter.handleMark)
        handle = post.author.screenName
        name = post.author.name
        text = post.text
        query = post.query.map(PostFilter.trimmed).flatMap { $0.isEmpty ? nil : $0 }
        photos = post.media.filter(\.servable).count
        network = post.network ?? "x"
        source = post.source
        tags = []
        for tag in post.entities.hashtags.map(\.tag) + post.entities.cashtags.map(\.tag) {
            let key = PostFilter.normalise(tag, dropping: PostFilter.tagMarks)
            if !key.isEmpty, !tags.contains(where: { $0.key == key }) { tags.append((key, tag)) }
        }
        tagText = tags.map(\.display).joined(separator: " ")
        references = PostWriter.references(of: post)
        // A photo's hash is a fact of its bytes: the first copy read stays.
        signatures = post.media.compactMap { media in
            guard media.type == "photo", let sha = media.sha256.flatMap(PostCatalog.blobHash), let signature = media.signature else {
                return nil
            }
            return (sha, signature.packed, signature.quality)
        }
    }
}

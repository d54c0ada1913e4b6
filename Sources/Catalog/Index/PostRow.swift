import Foundation
import BlobStore

/// A post as the catalog's rows hold it: every key normalised, every hash parsed,
/// every count made, so the one thread that writes SQLite only binds and steps.
/// Made on the threads that read the manifest (``PostCatalog/PostReader``), not on the
/// writer's, whose work is the length of a big ingest.
///
/// A class, not a struct: a row is handed on whole several times (out of each decoding
/// lane, into a batch, to the writer), and a struct of a dozen strings and arrays took
/// a dozen reference counts at every hand and as many at every drop (1.3 s of a million
/// posts' `reindex`, on the threads that read the manifests); a class takes one.
final class PostRow: Sendable {
    let id: String
    let created: Double
    let idOrder: String
    /// The handle lower-cased, without `@`: how lists filter by user.
    let user: String
    let handle: String
    let name: String
    let text: String
    let query: String?
    /// Photos the Image API can serve.
    let photos: Int
    let network: String
    /// The result file it came from (``PostFacts/source``).
    let source: String?
    /// Hashtags and cashtags, once each: the key as stored (lower-cased, no `#`/`$`)
    /// and the first spelling seen.
    let tags: [(key: String, display: String)]
    /// The tags as the full-text index has them: their spellings, a space between.
    let tagText: String
    let references: [PostWriter.Reference]
    let signatures: [(sha256: BlobHash, signature: [UInt8], quality: Int)]

    init(_ post: PostFacts) {
        id = post.id
        created = PostOrder.created(post.createdAt)
        idOrder = PostOrder.idKey(post.id)
        user = PostFilter.normalise(post.author.screenName, dropping: PostFilter.handleMark)
        handle = post.author.screenName
        name = post.author.name
        text = post.text
        query = post.query.map(PostFilter.trimmed).flatMap { $0.isEmpty ? nil : $0 }
        photos = post.media.count(where: \.servable)
        network = post.network ?? "x"
        source = post.source
        var tags: [(key: String, display: String)] = []
        var tagText = ""
        func add(_ tag: String) {
            let key = PostFilter.normalise(tag, dropping: PostFilter.tagMarks)
            guard !key.isEmpty, !tags.contains(where: { $0.key == key }) else { return }
            if !tags.isEmpty { tagText += " " }
            tagText += tag
            tags.append((key, tag))
        }
        for tag in post.entities.hashtags { add(tag.tag) }
        for tag in post.entities.cashtags { add(tag.tag) }
        self.tags = tags
        self.tagText = tagText
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

import CacheCore
import Catalog
import BlobStore
import MediaFetch
import MediaTypes

/// What became of one planned URL.
enum ItemOutcome: Sendable {
    /// `kind`: what the bytes are (sniffed when they arrived, or as the index recorded
    /// it), carried as a kind; the manifest writes its MIME type.
    case stored(hash: BlobHash, size: Int, kind: ContentKind?, fromCache: Bool)
    case failed(FetchFailure)

    func ref(url: String, derived: [BlobHash: DeriveOutcome] = [:]) -> MediaRef {
        switch self {
        case let .stored(hash, size, kind, _):
            var ref = MediaRef(url: url, sha256: hash.hex, bytes: size, contentType: kind?.mimeType, error: nil)
            if let d = derived[hash] {
                ref.width = d.width
                ref.height = d.height
                ref.thumbnails = d.records.filter { $0.kind == .thumbnail }
                    .map { ThumbnailRef(size: $0.size ?? 0, path: $0.path, width: $0.width ?? 0, height: $0.height ?? 0,
                                        sha256: $0.contentSHA256?.hex) }
                    .sorted { $0.size < $1.size }
                if let pack = d.records.first(where: { $0.kind == DerivedKind.pack }) {
                    ref.tiles = TileRefs(pack: pack.path, tileSize: pack.size ?? 0, bytes: pack.bytes)
                } else {
                    let dzi = d.records.first { $0.kind == .deepZoomTree }, iiif = d.records.first { $0.kind == .iiifTree }
                    if dzi != nil || iiif != nil {
                        ref.tiles = TileRefs(dzi: dzi?.path, iiif: iiif?.path,
                                             tileSize: (dzi ?? iiif)?.size ?? 0)
                    }
                }
                ref.deriveError = d.error
                ref.decodeWarning = d.damage
                if let pdq = d.pdq {
                    ref.pdq = pdq.hash.hex
                    ref.pdqQuality = pdq.quality
                    ref.pdqDihedral = pdq.dihedral.dropFirst().map(\.hex)
                }
            }
            return ref
        case let .failed(f):
            return MediaRef(url: url, sha256: nil, bytes: nil, contentType: nil, error: MediaError(f))
        }
    }
}

extension MediaError {
    init(_ f: FetchFailure) {
        self.init(code: f.code, message: f.description, httpStatus: f.httpStatus)
    }
}

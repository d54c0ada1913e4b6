import BlobStore
import MediaFetch

/// What became of one planned URL.
enum ItemOutcome: Sendable {
    case stored(hash: BlobHash, size: Int, contentType: String?, fromCache: Bool)
    case failed(FetchFailure)

    func ref(url: String) -> MediaRef {
        switch self {
        case let .stored(hash, size, contentType, _):
            MediaRef(url: url, sha256: hash.hex, bytes: size, contentType: contentType, error: nil)
        case let .failed(f):
            MediaRef(url: url, sha256: nil, bytes: nil, contentType: nil, error: MediaError(f))
        }
    }
}

extension MediaError {
    init(_ f: FetchFailure) {
        self.init(code: f.code, message: f.description, httpStatus: f.httpStatus)
    }
}

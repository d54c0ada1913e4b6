public import Foundation

/// A bucket as a ``CacheStorage``.
extension S3Client: CacheStorage {
    public var address: String { location.description }

    public func list(_ folder: String) async throws(StoreError) -> [StoredObject] {
        try await list(folder, pageSize: 1000)
    }

    public func download(_ path: String, to file: URL) async throws(StoreError) -> Bool {
        try await download(path, to: file, chunk: 32 << 20)
    }

    /// Puts the file (in parts past ``partSize``) with `If-None-Match: *`; a 412 is
    /// trusted only once ``compare(_:file:partSize:readBackLimit:)`` finds the
    /// store's checksum, ETag or read-back bytes to be the file's, else the file is
    /// put over it.
    public func store(_ path: String, file: URL, sha256: String?, contentType: String) async throws(StoreError) -> PutOutcome {
        let result = try await putFile(path, file: file, partSize: Self.partSize, sha256: sha256, contentType: contentType)
        guard result == .alreadyStored else { return .stored }
        switch try await compare(path, file: file, partSize: Self.partSize) {
        case .same, .sizeOnly: return .alreadyStored
        case .absent, .different:
            _ = try await putFile(path, file: file, partSize: Self.partSize, sha256: sha256, contentType: contentType, replace: true)
            return .replaced
        }
    }

    public func store(_ path: String, bytes: [UInt8], sha256: String?, contentType: String, replace: Bool) async throws(StoreError) -> PutOutcome {
        let result = try await put(path, bytes: bytes, sha256: sha256, contentType: contentType, replace: replace)
        guard result == .alreadyStored else { return .stored }
        switch try await compare(path, bytes: bytes) {
        case .same, .sizeOnly: return .alreadyStored
        case .absent, .different:
            _ = try await put(path, bytes: bytes, sha256: sha256, contentType: contentType, replace: true)
            return .replaced
        }
    }

    /// Files larger than this go up in parts (multipart upload); the ETag check of
    /// an object found already there assumes the same size.
    public static let partSize = 8 << 20
}

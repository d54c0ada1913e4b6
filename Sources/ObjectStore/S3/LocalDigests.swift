import BlobStore
import Foundation
import Hashing
import MediaFetch

/// A local file's SHA-256 and MD5 digests, whole and by part, read once: what a
/// store's checksum or ETag is compared with.
struct LocalDigests {
    var size: Int
    var sha256Base64: String
    var md5: String
    var partMD5s: [[UInt8]]

    init(bytes: [UInt8]) {
        size = bytes.count
        sha256Base64 = Data(SHA256.hash(data: bytes).bytes).base64EncodedString()
        md5 = Data(Insecure.MD5.hash(data: bytes)).map { String(format: "%02x", $0) }.joined()
        partMD5s = [Array(Insecure.MD5.hash(data: bytes))]
    }

    init?(file: URL, partSize: Int) {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
        defer { try? handle.close() }
        var whole = SHA256()
        var wholeMD5 = Insecure.MD5()
        var parts: [[UInt8]] = []
        var total = 0
        while let chunk = try? handle.read(upToCount: partSize), !chunk.isEmpty {
            whole.update(data: chunk)
            wholeMD5.update(data: chunk)
            parts.append(Array(Insecure.MD5.hash(data: chunk)))
            total += chunk.count
        }
        size = total
        sha256Base64 = Data(whole.finalize().bytes).base64EncodedString()
        md5 = Data(wholeMD5.finalize()).map { String(format: "%02x", $0) }.joined()
        partMD5s = parts
    }

    /// The ETag S3 gives these bytes: the MD5 of a single PUT, or the MD5 of the
    /// parts' MD5s and the part count for a multipart upload.
    func etag(parts multipart: Bool) -> String? {
        guard multipart else { return md5 }
        guard partMD5s.count > 1 else { return nil }
        let joined = Insecure.MD5.hash(data: partMD5s.flatMap { $0 })
        return Data(joined).map { String(format: "%02x", $0) }.joined() + "-\(partMD5s.count)"
    }
}

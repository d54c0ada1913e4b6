import BlobStore
import Foundation
import Hashing
import HTTPTypes
import MediaFetch

extension S3Client {
    // MARK: - Multipart

    /// Stores the file at `path` in parts of `partSize` bytes (S3's minimum is 5 MiB,
    /// but for the last), unless the key exists. The object appears only when the
    /// last step completes; on any failure the upload is aborted, and a process
    /// killed before that leaves parts the store expires, never a visible object.
    public func putFile(_ path: String, file: URL, partSize: Int = 8 << 20, sha256: String? = nil,
                        contentType: String = "application/octet-stream", replace: Bool = false) async throws(StoreError) -> PutResult {
        let key = try checkedKey(path)
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: file) } catch {
            throw .invalidLocation("cannot read \(file.path): \((error as NSError).localizedDescription)")
        }
        defer { try? handle.close() }
        let total = (try? handle.seekToEnd()).map(Int.init) ?? 0
        try? handle.seek(toOffset: 0)
        if total <= partSize {
            // A file that cannot be read is an error, never an empty object (which
            // If-None-Match would then keep for good).
            let bytes: [UInt8]
            do { bytes = [UInt8](try handle.readToEnd() ?? Data()) } catch {
                throw .invalidLocation("cannot read \(file.path): \((error as NSError).localizedDescription)")
            }
            guard bytes.count == total else { throw .invalidLocation("\(file.path) changed while it was read") }
            return try await put(path, bytes: bytes, sha256: sha256, contentType: contentType, replace: replace)
        }
        if !replace, try await size(path) != nil { return .alreadyStored }
        let objectURL = settings.url(bucket: location.bucket, key: key)
        let uploadID = try await beginUpload(path, contentType: contentType)
        let upload = "uploadId=\(Self.queryValue(uploadID))"
        do throws(StoreError) {
            var parts: [(number: Int, etag: String)] = []
            var number = 0
            // The parts are checked by the store one by one; the whole is checked here
            // against the name it goes under, before the object can appear.
            var whole = SHA256()
            while true {
                let data: Data
                do { data = try handle.read(upToCount: partSize) ?? Data() } catch {
                    throw StoreError.invalidLocation("cannot read \(file.path): \((error as NSError).localizedDescription)")
                }
                if data.isEmpty { break }
                number += 1
                let bytes = [UInt8](data)
                whole.update(data: bytes)
                let response = try await send(APIRequest(
                    url: objectURL + "?partNumber=\(number)&\(upload)",
                    headers: [.amzContentSHA256: Self.sha256(bytes)], body: bytes, maxBytes: 1 << 20, method: .put),
                    key: key)
                guard response.isSuccess, let etag = response.header(.eTag) else { throw classify(response, key: key) }
                parts.append((number, etag))
            }
            if let sha256 {
                let actual = BlobHash(digest: whole.finalize()).hex
                guard actual == sha256 else { throw StoreError.integrity(key: key) }
            }
            let xml = "<CompleteMultipartUpload>" + parts.map {
                "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(Self.xmlEscaped($0.etag))</ETag></Part>"
            }.joined() + "</CompleteMultipartUpload>"
            let body = Array(xml.utf8)
            let completed = try await send(APIRequest(
                url: objectURL + "?\(upload)",
                headers: [.amzContentSHA256: Self.sha256(body), .contentType: "application/xml"],
                body: body, method: .post), key: key)
            // CompleteMultipartUpload can fail inside a 200: the error is in the body.
            if !completed.isSuccess || S3XML.error(completed.body) != nil { throw classify(completed, key: key) }
            return .stored
        } catch {
            _ = try? await send(APIRequest(
                url: objectURL + "?\(upload)", headers: [.amzContentSHA256: Self.emptySHA256], method: .delete),
                key: key)
            throw error
        }
    }

}

/// A multipart upload begun and neither completed nor aborted: a writer killed
/// mid-file leaves one, whose parts the bucket keeps (and bills) but never shows.
public struct UnfinishedUpload: Sendable, Equatable {
    /// The object's key in the bucket (``S3Client/unfinishedUploads(_:)`` gives cache paths).
    public var key: String
    public var id: String
    public var initiated: Date?

    public init(key: String, id: String, initiated: Date?) {
        self.key = key
        self.id = id
        self.initiated = initiated
    }
}

extension S3Client {
    /// Begins a multipart upload of `path`; its ID.
    public func beginUpload(_ path: String, contentType: String = "application/octet-stream") async throws(StoreError) -> String {
        let key = try checkedKey(path)
        let created = try await send(APIRequest(
            url: settings.url(bucket: location.bucket, key: key) + "?uploads=",
            headers: [.amzContentSHA256: Self.emptySHA256, .contentType: contentType], body: [], method: .post), key: key)
        guard created.isSuccess else { throw classify(created, key: key) }
        return try S3XML.uploadID(created.body)
    }

    /// The unfinished multipart uploads below `path` (a cache-relative folder, or
    /// empty for all), keyed by cache path.
    public func unfinishedUploads(_ path: String = "") async throws(StoreError) -> [UnfinishedUpload] {
        let prefix = location.key(path)
        guard prefix.utf8.allSatisfy(S3Location.keyByte) else { throw .invalidLocation("bad prefix \(path)") }
        var markers: (key: String, id: String)? = nil
        var found: [UnfinishedUpload] = []
        repeat {
            var query = "max-uploads=1000&prefix=\(Self.queryValue(prefix))&uploads="
            if let markers {
                query = "key-marker=\(Self.queryValue(markers.key))&" + query + "&upload-id-marker=\(Self.queryValue(markers.id))"
            }
            let response = try await send(APIRequest(
                url: settings.url(bucket: location.bucket, query: query),
                headers: [.amzContentSHA256: Self.emptySHA256], maxBytes: 64 << 20), key: nil)
            guard response.isSuccess else { throw classify(response, key: nil) }
            let page = try S3XML.uploads(response.body)
            found += page.uploads.compactMap { upload in
                location.path(ofKey: upload.key).map { UnfinishedUpload(key: $0, id: upload.id, initiated: upload.initiated) }
            }
            if page.truncated, let key = page.nextKeyMarker, let id = page.nextUploadIDMarker { markers = (key, id) } else { markers = nil }
        } while markers != nil
        return found
    }

    /// Aborts an unfinished upload: its parts are freed. One already gone is not an error.
    public func abort(_ upload: UnfinishedUpload) async throws(StoreError) {
        let key = try checkedKey(upload.key)
        let response = try await send(APIRequest(
            url: settings.url(bucket: location.bucket, key: key) + "?uploadId=\(Self.queryValue(upload.id))",
            headers: [.amzContentSHA256: Self.emptySHA256], method: .delete), key: key)
        guard response.isSuccess || response.status == 404 else { throw classify(response, key: key) }
    }
}

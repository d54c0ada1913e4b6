import BlobStore
import Foundation
import Hashing
import HTTPTypes
import MediaFetch
import Synchronization

/// Talks to one bucket of an S3-compatible store: every request is signed by
/// libcurl (`CURLOPT_AWS_SIGV4`) and carries the SHA-256 of its body in
/// `x-amz-content-sha256`, so the store itself refuses bytes that changed on the way.
///
/// Writes are idempotent without coordination: a PUT says `If-None-Match: *`, and a
/// 412 means the key already holds (by content addressing) the same bytes. Large
/// objects go up in parts (multipart upload), aborted on failure, so a process
/// killed mid-upload leaves no visible object. Transient failures (no answer, 5xx,
/// 429, SlowDown) are retried with backoff on the given clock; the rest are typed
/// ``StoreError``s that say what to do.
public final class S3Client: Sendable {
    public let location: S3Location
    public let settings: S3Settings
    let fetcher: HTTPFetcher
    private let clock: any WallClock
    /// With one, a store that stops answering is marked down after a few failures
    /// and requests fail at once until a probe finds it back (`serve`).
    public let health: StoreHealth?

    public init(location: S3Location, settings: S3Settings, clock: any WallClock = SystemWallClock(),
                health: StoreHealth? = nil) throws(StoreError) {
        self.location = location
        self.settings = settings
        self.clock = clock
        self.health = health
        do { fetcher = try HTTPFetcher(configuration: settings.fetch) } catch {
            throw .unreachable(endpoint: settings.endpointDescription, reason: "the HTTP client did not start: \(error)")
        }
    }

    public func shutdown() { fetcher.shutdown() }

    public enum PutResult: Sendable, Equatable {
        /// This request stored the object.
        case stored
        /// The key was already there (412): with content-addressed keys, the same bytes.
        case alreadyStored
    }

    static let emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The body's SHA-256 as `x-amz-content-sha256` wants it: the blob store's own hex.
    static func sha256(_ bytes: [UInt8]) -> String { BlobHash(hashing: bytes).hex }

    /// Stores `bytes` at `path` (below the location's prefix) unless something is there.
    /// `sha256` is the body's hash when the caller knows it already (a blob's name).
    ///
    /// The body's SHA-256 also goes as `x-amz-checksum-sha256`: a store that keeps
    /// checksums (AWS) stores it and answers it to a HEAD, so a later "already
    /// there" can be checked without reading the object back. With `replace`, the
    /// PUT is unconditional: it puts back an object found damaged.
    public func put(_ path: String, bytes: [UInt8], sha256: String? = nil,
                    contentType: String = "application/octet-stream", replace: Bool = false) async throws(StoreError) -> PutResult {
        let key = try checkedKey(path)
        let digest = SHA256.hash(data: bytes)
        let hex = sha256 ?? BlobHash(digest: digest).hex
        var headers: HTTPFields = [.amzContentSHA256: hex, .contentType: contentType,
                       .amzChecksumSHA256: Data(digest.bytes).base64EncodedString()]
        if !replace { headers[.ifNoneMatch] = "*" }
        let response = try await send(APIRequest(
            url: settings.url(bucket: location.bucket, key: key), headers: headers,
            body: bytes, maxBytes: 1 << 20, method: .put), key: key)
        switch response.status {
        case 412: return .alreadyStored
        case 200..<300: return .stored
        default: throw classify(response, key: key)
        }
    }

    /// The object's bytes (or the `range` of them, cut short at its end) and its size,
    /// or nil when there is no such key.
    public func read(_ path: String, range: Range<Int>? = nil, maxBytes: Int = 256 << 20) async throws(StoreError) -> ObjectBytes? {
        let key = try checkedKey(path)
        var headers: HTTPFields = [.amzContentSHA256: Self.emptySHA256]
        if let range {
            guard !range.isEmpty else { return ObjectBytes(bytes: [], objectSize: try await size(path) ?? 0) }
            headers[.range] = "bytes=\(range.lowerBound)-\(range.upperBound - 1)"
        }
        let response = try await send(APIRequest(
            url: settings.url(bucket: location.bucket, key: key), headers: headers, maxBytes: maxBytes), key: key)
        switch response.status {
        case 404: return nil
        case 416: return ObjectBytes(bytes: [], objectSize: Self.totalSize(contentRange: response.header(.contentRange)) ?? 0)
        case 206:
            let total = Self.totalSize(contentRange: response.header(.contentRange)) ?? response.body.count
            return ObjectBytes(bytes: response.body, objectSize: total)
        case 200:
            if let range {
                // A store that ignores Range sends it all: cut the part asked for.
                let bytes = range.lowerBound >= response.body.count ? []
                    : Array(response.body[range.lowerBound..<min(range.upperBound, response.body.count)])
                return ObjectBytes(bytes: bytes, objectSize: response.body.count)
            }
            return ObjectBytes(bytes: response.body, objectSize: response.body.count)
        default: throw classify(response, key: key)
        }
    }

    /// Copies the object into `file` (created or truncated) a `chunk` at a time by
    /// ranged GETs, so an object of any size passes in bounded memory; false when
    /// there is no such key.
    public func download(_ path: String, to file: URL, chunk: Int = 32 << 20) async throws(StoreError) -> Bool {
        guard FileManager.default.createFile(atPath: file.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: file)
        else { throw .invalidLocation("cannot write \(file.path)") }
        defer { try? handle.close() }
        var offset = 0
        while true {
            guard let part = try await read(path, range: offset..<(offset + chunk), maxBytes: chunk + 1) else {
                return false
            }
            do { try handle.write(contentsOf: part.bytes) } catch {
                throw .invalidLocation("cannot write \(file.path): \((error as NSError).localizedDescription)")
            }
            offset += part.bytes.count
            if part.bytes.isEmpty || offset >= part.objectSize { return true }
        }
    }

    /// The total of `bytes 0-4095/12345` (RFC 9110 §14.4), or of `bytes */12345`.
    static func totalSize(contentRange: String?) -> Int? {
        guard let text = contentRange, let slash = text.lastIndex(of: "/") else { return nil }
        return Int(text[text.index(after: slash)...].trimmingCharacters(in: .whitespaces))
    }

    /// The object's size, or nil when there is no such key.
    public func size(_ path: String) async throws(StoreError) -> Int? {
        let key = try checkedKey(path)
        let response = try await send(APIRequest(
            url: settings.url(bucket: location.bucket, key: key), headers: [.amzContentSHA256: Self.emptySHA256],
            // No body comes, but libcurl holds the Content-Length against the limit all the same.
            maxBytes: 1 << 40, method: .head), key: key)
        switch response.status {
        case 404: return nil
        case 200..<300: return response.header(.contentLength).flatMap { Int($0) } ?? 0
        default: throw classify(response, key: key)
        }
    }

    /// What a HEAD says of an object: its size, ETag and, where the store keeps
    /// checksums, the SHA-256 it computed (base64).
    public struct Head: Sendable, Equatable {
        public var size: Int
        public var etag: String?
        public var checksumSHA256: String?
        public var contentType: String?
    }

    /// The object's head, or nil when there is no such key.
    public func head(_ path: String) async throws(StoreError) -> Head? {
        let key = try checkedKey(path)
        let response = try await send(APIRequest(
            url: settings.url(bucket: location.bucket, key: key),
            headers: [.amzContentSHA256: Self.emptySHA256, .amzChecksumMode: "ENABLED"],
            maxBytes: 1 << 40, method: .head), key: key)
        switch response.status {
        case 404: return nil
        case 200..<300:
            return Head(size: response.header(.contentLength).flatMap { Int($0) } ?? 0,
                        etag: response.header(.eTag)?.trimmingCharacters(in: CharacterSet(charactersIn: "\"")),
                        checksumSHA256: response.header(.amzChecksumSHA256),
                        contentType: response.header(.contentType))
        default: throw classify(response, key: key)
        }
    }

    /// Whether the object at `path` holds the bytes of `file`, judged by what the
    /// store computed itself: its SHA-256 checksum where it keeps one, else its
    /// ETag (the MD5 of the bytes, or of each `partSize` part's MD5 for a multipart
    /// upload), and the size. A store that answers neither (an ETag of another
    /// kind) has the object read back and hashed when it is at most `readBackLimit`.
    public enum Match: Sendable, Equatable {
        case same
        case different(String)
        case absent
        /// Same size, and nothing more the store can say cheaply.
        case sizeOnly
    }

    public func compare(_ path: String, file: URL, partSize: Int = 8 << 20, readBackLimit: Int = 16 << 20) async throws(StoreError) -> Match {
        guard let digests = LocalDigests(file: file, partSize: partSize) else {
            throw .invalidLocation("cannot read \(file.path)")
        }
        return try await compare(path, digests: digests, readBackLimit: readBackLimit)
    }

    /// ``compare(_:file:partSize:readBackLimit:)`` for bytes in memory (put in one request).
    public func compare(_ path: String, bytes: [UInt8], readBackLimit: Int = 16 << 20) async throws(StoreError) -> Match {
        try await compare(path, digests: LocalDigests(bytes: bytes), readBackLimit: readBackLimit)
    }

    private func compare(_ path: String, digests: LocalDigests, readBackLimit: Int) async throws(StoreError) -> Match {
        guard let head = try await head(path) else { return .absent }
        guard head.size == digests.size else { return .different("\(head.size) bytes in the bucket, \(digests.size) here") }
        if let checksum = head.checksumSHA256 {
            return checksum == digests.sha256Base64 ? .same : .different("its SHA-256 checksum differs")
        }
        if let etag = head.etag?.lowercased(), let expected = digests.etag(parts: etag.split(separator: "-").count == 2) {
            if etag.utf8.count >= 32, etag.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || $0 == 45 }) {
                return etag == expected ? .same : .different("its ETag (MD5) differs")
            }
        }
        guard head.size <= readBackLimit, let bytes = try await get(path, maxBytes: readBackLimit + 1) else { return .sizeOnly }
        return SHA256.hash(data: bytes).withUnsafeBytes { Data($0) }.base64EncodedString() == digests.sha256Base64
            ? .same : .different("its bytes differ")
    }

    /// Checks that these credentials may write here: one small object put and
    /// deleted. Read-only credentials fail with ``StoreError/accessDenied(bucket:code:)``
    /// before a run, not once per file in it.
    public func checkWritable() async throws(StoreError) {
        let path = "\(CacheLayout.leasesFolder)/.write-check-\(UInt64.random(in: .min ... .max))"
        _ = try await put(path, bytes: Array("{}".utf8), contentType: "application/json")
        try? await delete(path)
    }

    public func delete(_ path: String) async throws(StoreError) {
        let key = try checkedKey(path)
        let response = try await send(APIRequest(
            url: settings.url(bucket: location.bucket, key: key), headers: [.amzContentSHA256: Self.emptySHA256],
            method: .delete), key: key)
        guard response.isSuccess || response.status == 404 else { throw classify(response, key: key) }
    }

    /// Every object below `path` (a folder of the cache: `manifests/`), over as many
    /// ListObjectsV2 pages as it takes; keys are returned as cache-relative paths.
    public func list(_ path: String, pageSize: Int = 1000) async throws(StoreError) -> [StoredObject] {
        let prefix = location.key(path)
        guard prefix.utf8.allSatisfy(S3Location.keyByte) else { throw .invalidLocation("bad prefix \(path)") }
        var token: String?
        var objects: [StoredObject] = []
        repeat {
            var query = "list-type=2&max-keys=\(max(1, min(pageSize, 1000)))&prefix=\(Self.queryValue(prefix))"
            if let token { query = "continuation-token=\(Self.queryValue(token))&" + query }
            let response = try await send(APIRequest(
                url: settings.url(bucket: location.bucket, query: query),
                headers: [.amzContentSHA256: Self.emptySHA256], maxBytes: 64 << 20), key: nil)
            guard response.isSuccess else { throw classify(response, key: nil) }
            let page = try S3XML.listing(response.body)
            objects += page.objects.compactMap { object in
                location.path(ofKey: object.key).map { StoredObject(key: $0, size: object.size, etag: object.etag, lastModified: object.lastModified) }
            }
            token = page.truncated ? page.nextToken : nil
        } while token != nil
        return objects
    }

    /// Asks for one key of the bucket: throws ``StoreError/noSuchBucket(_:)`` or
    /// ``StoreError/accessDenied(bucket:code:)`` before a run starts, so a wrong
    /// setting is said once instead of once per file.
    public func probe() async throws(StoreError) {
        let response = try await send(APIRequest(
            url: settings.url(bucket: location.bucket, query: "list-type=2&max-keys=1"),
            headers: [.amzContentSHA256: Self.emptySHA256], maxBytes: 1 << 20), key: nil)
        guard response.isSuccess else { throw classify(response, key: nil) }
        // A listing is XML that names the bucket: an endpoint that is not S3 (a web
        // server's HTML page) must not pass for an empty bucket.
        _ = try S3XML.listing(response.body)
    }

    /// One listing attempt within `timeout`, past the health check: how a store
    /// marked down is found back.
    func healthProbe(timeout: Duration) async -> Bool {
        let request = APIRequest(
            url: settings.url(bucket: location.bucket, query: "list-type=2&max-keys=1"),
            headers: [.amzContentSHA256: Self.emptySHA256], maxBytes: 1 << 20, timeout: timeout)
        guard let response = try? await send(request, key: nil, probing: true) else { return false }
        return response.status < 500
    }

    /// Creates the bucket (tests, and users setting up a store); one that exists and is ours is fine.
    public func createBucket() async throws(StoreError) {
        let response = try await send(APIRequest(
            url: settings.url(bucket: location.bucket), headers: [.amzContentSHA256: Self.emptySHA256], method: .put),
            key: nil)
        if response.isSuccess { return }
        let error = classify(response, key: nil)
        if case let .server(_, code, _) = error, code == "BucketAlreadyOwnedByYou" { return }
        throw error
    }

    /// Sets the bucket's policy (a JSON document): for setting up a store, such as
    /// read-only access for serving machines.
    public func setBucketPolicy(_ policy: [UInt8]) async throws(StoreError) {
        let response = try await send(APIRequest(
            url: settings.url(bucket: location.bucket, query: "policy="),
            headers: [.amzContentSHA256: Self.sha256(policy), .contentType: "application/json"],
            body: policy, method: .put), key: nil)
        guard response.isSuccess else { throw classify(response, key: nil) }
    }

    // MARK: - Requests

    func checkedKey(_ path: String) throws(StoreError) -> String {
        let key = location.key(path)
        guard !path.isEmpty, key.utf8.count <= 1024, key.utf8.allSatisfy(S3Location.keyByte),
              !path.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
        else { throw .invalidLocation("'\(path)' is not a key TweetCache writes") }
        return key
    }

    /// One request, retried while the failure is transient and the caller's
    /// deadline (``S3Deadline``) allows. 404 and 412 are answers for the caller;
    /// everything else not 2xx is classified here. With ``health``, a store marked
    /// down is not asked at all, and a request that gets no answer counts towards
    /// marking it down.
    func send(_ request: APIRequest, key: String?, probing: Bool = false) async throws(StoreError) -> APIResponse {
        if !probing { try health?.admit() }
        var request = request
        request.signing = try await settings.signature()
        // A request that timed out after its first body bytes came was answered, only
        // slowly: a slow store is not a store that is down.
        let answered = FirstByteSeen()
        request.onFirstByte = { _ in answered.mark() }
        let deadline = S3Deadline.current
        var attempt = 0
        while true {
            attempt += 1
            if let deadline {
                let remaining = deadline - ContinuousClock.now
                guard remaining > .zero else {
                    throw noAnswer(.unreachable(endpoint: settings.endpointDescription, reason: "no answer within the deadline"),
                                   probing: probing)
                }
                request.timeout = min(request.timeout ?? remaining, remaining)
            }
            let error: StoreError
            switch await fetcher.perform(request) {
            case let .failure(failure):
                if case .cancelled = failure { throw .unreachable(endpoint: settings.endpointDescription, reason: "cancelled") }
                if case let .tooLarge(limit) = failure { throw .tooLarge(key: key ?? location.bucket, limit: limit) }
                if case let .untrustedCertificate(why) = failure {
                    throw .untrustedCertificate(endpoint: settings.endpointDescription, reason: why)
                }
                error = .unreachable(endpoint: settings.endpointDescription, reason: failure.description)
                if answered.seen, !probing { health?.succeeded() }
            case let .success(response):
                if response.status < 500, !probing { health?.succeeded() }
                if response.isSuccess || [304, 412, 416].contains(response.status) {
                    return response
                }
                if response.status == 404, S3XML.error(response.body)?.code != "NoSuchBucket" { return response }
                error = classify(response, key: key)
            }
            let backoff = RetryPolicy(base: settings.backoffBase, cap: settings.backoffBase * 1024).backoff(afterAttempt: attempt)
            let timeLeft = deadline.map { $0 - ContinuousClock.now > backoff } ?? true
            guard error.isTransient, attempt < (probing ? 1 : settings.attempts), timeLeft, !Task.isCancelled else {
                throw error.isTransient && !answered.seen ? noAnswer(error, probing: probing) : error
            }
            try? await clock.sleep(for: backoff)
        }
    }

    /// A request that got no usable answer: counted towards marking the store
    /// down (and probing starts when this one did).
    func noAnswer(_ error: StoreError, probing: Bool) -> StoreError {
        guard let health, !probing else { return error }
        if health.failed(error.description) {
            let timeout = health.probeTimeout
            health.probeUntilUp(sleep: { [clock] in try await clock.sleep(for: $0) }) { [weak self] in
                await self?.healthProbe(timeout: timeout) ?? false
            }
        }
        return error
    }

    func classify(_ response: APIResponse, key: String?) -> StoreError {
        let parsed = S3XML.error(response.body)
        let code = parsed?.code ?? ""
        let message = parsed?.message ?? ""
        switch (response.status, code) {
        case (_, "RequestTimeTooSkewed"): return .clockSkew(message)
        case (_, "NoSuchBucket"): return .noSuchBucket(location.bucket)
        case (_, "XAmzContentSHA256Mismatch"), (_, "BadDigest"): return .integrity(key: key ?? location.bucket)
        case (403, _): return .accessDenied(bucket: location.bucket, code: code.isEmpty ? "403" : code)
        default: return .server(status: response.status, code: code, message: message)
        }
    }

    static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn:
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? ""
    }

    static func xmlEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// Whether an attempt's first body byte arrived (set on the transfer thread).
final class FirstByteSeen: Sendable {
    private let flag = Atomic<Bool>(false)
    func mark() { flag.store(true, ordering: .relaxed) }
    var seen: Bool { flag.load(ordering: .relaxed) }
}

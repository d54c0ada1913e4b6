public import Foundation
public import BlobStore
import Hashing

/// Where a cache's shared files live: originals, packs, thumbnails, manifests and
/// run leases, under the same cache-relative paths ``CacheLayout`` gives them on
/// disk. Publishing, syncing, hydrating, serving and `verify`/`stats`/`gc` of a
/// shared store are written once over this, so an S3 bucket (``S3Client``) and a
/// folder (``LocalStorage``, e.g. a share every machine mounts) are the same to
/// them, and the next kind of store is one conformance.
///
/// The store is not trusted to keep what it was given: readers check what they
/// read against its name (or a recorded hash), and ``store(_:file:sha256:contentType:)``
/// never takes "already there" on faith.
public protocol CacheStorage: Sendable {
    /// The store, for messages and reports: `s3://bucket/prefix`, `file:///srv/cache`.
    var address: String { get }

    /// Every object below `folder` (a cache-relative folder such as `manifests/`;
    /// empty for all), with its size and when it was written.
    func list(_ folder: String) async throws(StoreError) -> [StoredObject]

    /// The object's bytes, or the `range` of them cut short at its end, with the
    /// object's whole size; nil when there is no such object. Larger than `maxBytes`
    /// throws ``StoreError/tooLarge(key:limit:)``.
    func read(_ path: String, range: Range<Int>?, maxBytes: Int) async throws(StoreError) -> ObjectBytes?

    /// The object's bytes as they arrive, for answering before a large object is
    /// whole; nil when there is no such object. The first bytes must come by the
    /// caller's deadline (``S3Deadline``), else the store counts as not answering;
    /// after them the body has no total limit (a slow store that answers is not
    /// down) and ends with an error when nothing arrives for `stall`.
    func stream(_ path: String, maxBytes: Int, stall: Duration) async throws(StoreError) -> ObjectStream?

    /// The SHA-256 of the object's bytes and how many there were, hashed as they are
    /// read rather than held whole (an original is any size): what `verify` checks an
    /// original's name against. Nil when there is no such object.
    func digest(_ path: String, stall: Duration) async throws(StoreError) -> (hash: BlobHash, size: Int)?

    /// Copies the object into `file` in bounded memory; false when there is no such object.
    func download(_ path: String, to file: URL) async throws(StoreError) -> Bool

    /// The object's size, or nil when there is none.
    func size(_ path: String) async throws(StoreError) -> Int?

    /// Puts the file at `path` unless an object is there. An object found there is
    /// taken as these bytes only once the store's own evidence says so (its
    /// checksum, size and hash); other bytes under the name are replaced. `sha256`
    /// is the file's hash when the name already is it (an original), checked
    /// before anything becomes visible.
    func store(_ path: String, file: URL, sha256: String?, contentType: String) async throws(StoreError) -> PutOutcome

    /// Puts `bytes` at `path`: unless an object is there, as
    /// ``store(_:file:sha256:contentType:)`` does, or over it with `replace`
    /// (putting back an object found damaged).
    func store(_ path: String, bytes: [UInt8], sha256: String?, contentType: String, replace: Bool) async throws(StoreError) -> PutOutcome

    /// Removes the object; removing one that is not there is not an error.
    func delete(_ path: String) async throws(StoreError)

    /// Checks the store is there and readable with these credentials.
    func probe() async throws(StoreError)

    /// Checks these credentials may write (read-only keys stop a run before it starts).
    func checkWritable() async throws(StoreError)

    /// Writes begun and never finished (a bucket's multipart uploads of a writer that
    /// was killed), below `path`; a store whose writes are whole or nothing has none.
    func unfinishedUploads(_ path: String) async throws(StoreError) -> [UnfinishedUpload]

    /// Frees what an unfinished write holds.
    func abort(_ upload: UnfinishedUpload) async throws(StoreError)

    /// The store's up/down state when it is watched (`serve`), else nil.
    var health: StoreHealth? { get }

    /// Releases connections; the store is not used after.
    func shutdown()
}

extension CacheStorage {
    public func read(_ path: String, maxBytes: Int = 256 << 20) async throws(StoreError) -> ObjectBytes? {
        try await read(path, range: nil, maxBytes: maxBytes)
    }

    /// A folder writes whole files by renaming: nothing is ever left half-written.
    public func unfinishedUploads(_ path: String) async throws(StoreError) -> [UnfinishedUpload] { [] }
    public func abort(_ upload: UnfinishedUpload) async throws(StoreError) {}

    /// A store read whole is handed over as one piece (a folder answers at once).
    public func stream(_ path: String, maxBytes: Int, stall: Duration) async throws(StoreError) -> ObjectStream? {
        guard let found = try await read(path, range: nil, maxBytes: maxBytes) else { return nil }
        return ObjectStream(size: found.objectSize, chunks: AsyncThrowingStream { continuation in
            continuation.yield(found.bytes)
            continuation.finish()
        })
    }

    /// Hashed as it arrives, a piece at a time.
    public func digest(_ path: String, stall: Duration) async throws(StoreError) -> (hash: BlobHash, size: Int)? {
        guard let found = try await stream(path, maxBytes: .max, stall: stall) else { return nil }
        var hasher = SHA256()
        var size = 0
        do {
            for try await piece in found.chunks {
                hasher.update(data: piece)
                size += piece.count
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .io(path: path, reason: String(describing: error))
        }
        return (BlobHash(digest: hasher.finalize()), size)
    }

    /// The whole object, or nil when there is none.
    public func get(_ path: String, maxBytes: Int = 256 << 20) async throws(StoreError) -> [UInt8]? {
        try await read(path, range: nil, maxBytes: maxBytes)?.bytes
    }
}

/// What a put came to.
public enum PutOutcome: Sendable, Equatable {
    /// This request stored the object.
    case stored
    /// The same bytes were there already (by the store's evidence, not its word).
    case alreadyStored
    /// Other bytes were there under the name; these replaced them.
    case replaced
}

/// Bytes of an object with the object's whole size (from `Content-Range` when a
/// range was asked for), so one ranged read of a pack's head also says how long
/// the pack is.
public struct ObjectBytes: Sendable {
    public var bytes: [UInt8]
    public var objectSize: Int

    public init(bytes: [UInt8], objectSize: Int) {
        self.bytes = bytes
        self.objectSize = objectSize
    }
}

/// An object as a listing names it, by its cache-relative path.
public struct StoredObject: Sendable, Equatable {
    public var key: String
    public var size: Int
    public var etag: String
    /// When the store says it was written (for a grace period before deleting).
    public var lastModified: Date? = nil

    public init(key: String, size: Int, etag: String = "", lastModified: Date? = nil) {
        self.key = key
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
    }
}

public import Foundation
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

extension BlobStore {
    /// Every published blob, in hash order, found by walking the shards.
    ///
    /// Lazy, one shard in memory at a time, so `verify` and garbage
    /// collection can walk a large cache. Names that are not canonical hashes
    /// in their proper shard (editor backups, stray files) are skipped rather
    /// than reported as blobs.
    public func allBlobs() -> some Sequence<BlobHash> {
        let base = blobsPath
        let shards = FileSystem.contents(of: base).filter(Self.isShardName).sorted()
        return shards.lazy.flatMap { shard -> [BlobHash] in
            FileSystem.contents(of: base + "/" + shard)
                .compactMap { BlobHash(hex: $0) }
                .filter { $0.shard == shard }
                .sorted()
        }
    }

    /// Removes a blob. Returns false when it was not there, which is not an
    /// error: another process may have removed it first.
    @discardableResult
    public func remove(_ hash: BlobHash) throws(BlobStoreError) -> Bool {
        try FileSystem.unlinkIfPresent(filePath(for: hash))
    }

    /// Re-hashes a blob and tells whether its bytes still match its name.
    ///
    /// Streams in 1 MiB chunks so checking a large cache needs no more
    /// memory than that. A missing blob throws ``BlobStoreError/blobNotFound(_:path:)``
    /// so callers can tell "gone" from "damaged".
    public func verify(_ hash: BlobHash) throws(BlobStoreError) -> Bool {
        let path = filePath(for: hash)
        let fd = try openBlob(hash, path: path)
        defer { close(fd) }
        return try FileSystem.hashContents(fd, path: path) == hash
    }

    /// Deletes temporary files whose writer cannot finish them: the PID in
    /// the name is not running, or nothing touched the file for `maximumAge`
    /// seconds. Runs on every open; returns how many files it removed.
    ///
    /// A PID from another PID namespace sharing the cache looks dead; its
    /// writer then fails to publish and retries, which costs a download,
    /// never a damaged blob.
    @discardableResult
    public func removeStaleTemporaryFiles(maximumAge: TimeInterval = 3600, now: Date = Date()) -> Int {
        let ownPID = getpid()
        let nowSeconds = now.timeIntervalSince1970
        var removed = 0
        for name in FileSystem.contents(of: temporaryPath) {
            let path = temporaryPath + "/" + name
            let stale: Bool
            if let pid = Self.writerPID(fromTemporaryName: name), pid != ownPID, !FileSystem.processIsAlive(pid) {
                stale = true
            } else if let modified = FileSystem.modificationTime(path) {
                stale = nowSeconds - Double(modified) > maximumAge
            } else {
                stale = false
            }
            if stale, (try? FileSystem.unlinkIfPresent(path)) == true {
                removed += 1
            }
        }
        return removed
    }

    /// The PID encoded in a temporary file name `tc-<pid>-<nonce>.part`.
    static func writerPID(fromTemporaryName name: String) -> Int32? {
        guard name.hasPrefix(temporaryPrefix), name.hasSuffix(temporarySuffix) else { return nil }
        let body = name.dropFirst(temporaryPrefix.count)
        guard let dash = body.firstIndex(of: "-") else { return nil }
        return Int32(body[..<dash])
    }

    static func isShardName(_ name: String) -> Bool {
        name.utf8.count == 2 && name.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
        }
    }
}

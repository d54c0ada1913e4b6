import BlobStore
import CTweetCache
import CacheCore
import Catalog
import Foundation
import ObjectStore
#if canImport(Glibc)
import Glibc
#endif

/// Reads and writes files strictly inside the cache directory.
///
/// Every read goes through `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` on a
/// descriptor of the cache root, so even a symlink planted inside the cache
/// (`derived/ab/<hash>` → `/etc`) cannot make the server read outside it.
///
/// With object storage (``remote``), a file missing here is read from the bucket
/// through the bounded read-through cache: whole (thumbnails, originals) or, for
/// a pyramid pack, only the bytes asked for (its head and index, one tile).
final class CacheFiles: Sendable {
    let root: URL
    let layout: CacheLayout
    /// Where what the server makes on request is written.
    private let derived: DerivedFiles
    private let rootDescriptor: Int32
    let remote: ReadThroughCache?
    /// What whole files read back must hash to; nil checks nothing (tests of the confinement).
    let integrity: IntegrityGuard?

    enum Failure: Error, Equatable {
        case missing
        case tooLarge(Int)
        case unreadable(String)
        /// The bucket did not answer (or refused): worth a retry, not a repair.
        case remote(StoreError)
        /// Every copy found failed its check (on disk and, with a bucket, there).
        case corrupt
    }

    init(layout: CacheLayout, remote: ReadThroughCache? = nil, integrity: IntegrityGuard? = nil) throws {
        self.remote = remote
        self.integrity = integrity
        self.layout = layout
        derived = DerivedFiles(layout: layout)
        self.root = layout.root
        let fd = open(self.root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw TileServerError.cacheUnavailable("\(self.root.path): \(String(cString: strerror(errno)))")
        }
        rootDescriptor = fd
    }

    deinit { close(rootDescriptor) }

    /// The whole file at `relative` (relative to the cache root), refusing files
    /// larger than `limit`.
    func read(_ relative: String, limit: Int = 64 << 20) throws(Failure) -> [UInt8] {
        let (fd, size) = try openRegular(relative)
        defer { close(fd) }
        guard size <= limit else { throw .tooLarge(size) }
        return Self.read(fd, offset: 0, count: size)
    }

    /// The compressed manifest at `relative` as a file that reads on its own: what it
    /// names in earlier manifests (``Catalog/SeekableZstd/Reference``) copied in, each
    /// frame checked on the way; at most `limit` bytes.
    func wholeManifest(_ relative: String, limit: Int = 64 << 20) throws(Failure) -> [UInt8] {
        let (fd, size) = try openRegular(relative)
        defer { close(fd) }
        guard size <= limit else { throw .tooLarge(size) }
        guard SeekableZstd.isCompressed(fd),
              let file = try? SeekableZstdFile(descriptor: fd, directory: layout.manifestsURL.path),
              (try? file.hasReferences()) == true
        else { return Self.read(fd, offset: 0, count: size) }
        var out: [UInt8] = []
        do {
            _ = try file.writeWhole { bytes in
                out.append(contentsOf: bytes)
                if out.count > limit { throw Failure.tooLarge(out.count) }
            }
            return out
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .unreadable("\(error)")
        }
    }

    /// `length` bytes at `offset` of the file at `relative` (fewer when the file
    /// is shorter), with the file's size: one open and one `pread`, for tiles
    /// read out of a pyramid pack.
    func read(_ relative: String, offset: Int, length: Int) throws(Failure) -> (bytes: [UInt8], fileSize: Int) {
        let (fd, size) = try openRegular(relative)
        defer { close(fd) }
        return (Self.read(fd, offset: offset, count: max(0, min(length, size - offset))), size)
    }

    /// The whole file at `relative`: the local one, else the bucket's, checked
    /// against what it must hash to (``IntegrityGuard``). A local copy that fails is
    /// moved aside and the bucket's read instead; when no sound copy is found this
    /// throws ``Failure/corrupt``. A thumbnail whose hash nobody recorded counts as
    /// missing, so it is made again rather than served unchecked.
    func load(_ relative: String, limit: Int = 64 << 20) async throws(Failure) -> [UInt8] {
        let expectation = integrity?.expectation(for: relative) ?? .unchecked
        if expectation == .unknown { throw .missing }
        var expected: Set<BlobHash>? = nil
        if case let .sha256(hashes) = expectation { expected = hashes }
        var corrupt = false
        do {
            let bytes = try read(relative, limit: limit)
            if expected.map({ $0.contains(BlobHash(hashing: bytes)) }) ?? true { return bytes }
            integrity?.corrupt(relative, source: .disk)
            corrupt = true
        } catch {
            guard error == .missing else { throw error }
        }
        guard let remote else { throw corrupt ? .corrupt : .missing }
        let found: [UInt8]?
        do { found = try await remote.object(relative, limit: limit, expecting: expected) } catch {
            switch error {
            case let .tooLarge(_, limit): throw .tooLarge(limit)
            case .corrupt:
                integrity?.corrupt(relative, source: .bucket)
                throw .corrupt
            default: throw .remote(error)
            }
        }
        guard let found else { throw corrupt ? .corrupt : .missing }
        return found
    }

    /// What ``openStreaming(_:hash:limit:streamFrom:stall:)`` found.
    enum Opened: Sendable {
        /// Read whole and checked (a local file, or a small object).
        case whole([UInt8])
        /// Arriving from the bucket, checked as it ends (``ReadThroughCache/stream(_:limit:expecting:stall:)``).
        case streaming(ObjectStream)
    }

    /// The original at `relative`: from the disk, else from the bucket, as a stream
    /// when it is `streamFrom` bytes or more. Its first bytes must come by the
    /// request's deadline; a store that sends nothing for `stall` after them ends the stream.
    func openStreaming(_ relative: String, hash: BlobHash, limit: Int = 64 << 20, streamFrom: Int, stall: Duration)
        async throws(Failure) -> Opened
    {
        // On disk: read whole and checked as any file is. (A copy kept from the bucket is
        // checked and handed over by the read-through cache's stream.)
        guard let remote, !FileManager.default.fileExists(atPath: layout.path(relative)) else {
            return .whole(try await load(relative, limit: limit))
        }
        let stream: ObjectStream?
        do { stream = try await remote.stream(relative, limit: limit, expecting: [hash], stall: stall) } catch {
            switch error {
            case let .tooLarge(_, limit): throw .tooLarge(limit)
            case .corrupt:
                integrity?.corrupt(relative, source: .bucket)
                throw .corrupt
            default: throw .remote(error)
            }
        }
        guard let stream else { throw .missing }
        guard stream.size < streamFrom else { return .streaming(stream) }
        // Small: read whole, so bytes that fail their check get an error, not a cut answer.
        var bytes: [UInt8] = []
        do {
            for try await chunk in stream.chunks { bytes += chunk }
        } catch StoreError.corrupt {
            integrity?.corrupt(relative, source: .bucket)
            throw .corrupt
        } catch let error as StoreError {
            throw .remote(error)
        } catch {
            throw .remote(.unreachable(endpoint: remote.storage.address, reason: "cancelled"))
        }
        return .whole(bytes)
    }

    /// `length` bytes at `offset` of the file at `relative` and its size: the local
    /// file's, else a ranged read of the bucket's object (never the whole object).
    func load(_ relative: String, offset: Int, length: Int) async throws(Failure) -> (bytes: [UInt8], fileSize: Int) {
        do {
            return try read(relative, offset: offset, length: length)
        } catch {
            guard error == .missing, let remote else { throw error }
            let found: ObjectBytes?
            do { found = try await remote.range(relative, offset: offset, length: length) } catch {
                throw .remote(error)
            }
            guard let found else { throw .missing }
            return (found.bytes, found.objectSize)
        }
    }

    /// Forgets the local copies of a bucket object (after it proved stale).
    func forgetRemote(_ relative: String) { remote?.forget(relative) }

    /// Opens a regular file below the root; its descriptor and size.
    private func openRegular(_ relative: String) throws(Failure) -> (Int32, Int) {
        let fd = tc_open_beneath(rootDescriptor, relative)
        guard fd >= 0 else {
            let code = errno
            // ELOOP and EXDEV: a symlink or an escape, refused by the kernel; to a
            // client that is the same as absent.
            if [ENOENT, ENOTDIR, ELOOP, EXDEV].contains(code) { throw .missing }
            throw .unreadable("\(relative): \(String(cString: strerror(code)))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .missing
        }
        return (fd, Int(info.st_size))
    }

    /// `count` bytes from `offset`; a file that shrank under us is returned as it
    /// is now, not padded with zeros.
    private static func read(_ fd: Int32, offset: Int, count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            done += n
        }
        if done < count { bytes.removeSubrange(done...) }
        return bytes
    }

    /// Whether a regular file exists at `relative`, inside the cache.
    func exists(_ relative: String) -> Bool {
        let fd = tc_open_beneath(rootDescriptor, relative)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    /// Writes a derived file (a lazily made tile or thumbnail) under a temporary
    /// name and renames it into place, so a reader never sees half a tile. Derived
    /// files can always be made again, so there is no fsync.
    /// Refuses when an existing folder on the way is a symlink (or otherwise
    /// leaves the cache), so a planted link cannot make the server write elsewhere.
    func write(_ bytes: [UInt8], to relative: String) throws {
        // Over a bucket the cache directory is not the store: what is made here
        // goes to the bounded local copy.
        if let remote {
            remote.keep(relative, bytes: bytes)
            return
        }
        try checkConfined(relative)
        try derived.write(bytes, to: relative)
    }

    /// Throws when an existing folder on the way to `relative` is a symlink (or
    /// otherwise leaves the cache): nothing is written through a planted link.
    func checkConfined(_ relative: String) throws {
        var folder = (relative as NSString).deletingLastPathComponent
        while !folder.isEmpty {
            var info = stat()
            if lstat(root.appendingPathComponent(folder).path, &info) == 0 {
                let fd = tc_open_beneath(rootDescriptor, folder)
                guard fd >= 0 else { throw TileServerError.cacheUnavailable("\(folder) leaves the cache; not writing") }
                close(fd)
                break
            }
            folder = (folder as NSString).deletingLastPathComponent
        }
    }
}

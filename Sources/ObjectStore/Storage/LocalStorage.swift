public import Foundation
import BlobStore
import CTweetCache
#if canImport(Glibc)
import Glibc
#endif

/// A folder as a ``CacheStorage``: a share every machine mounts (NFS, SMB), a
/// second disk, or the stand-in the tests run the bucket half against.
///
/// Confined like the tile server's reads: every file and folder is opened below
/// a descriptor of the root with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`
/// (``tc_open_beneath``), so a symlink planted in the store cannot make it read
/// or write elsewhere. Writes are crash-safe and never show half an object: the
/// bytes go to a hidden temporary file in the object's folder, are fsynced, and
/// appear under their name by `linkat` (put-if-absent: `EEXIST` is "already
/// there", then checked) or `renameat` (replace), and the folder is fsynced.
public final class LocalStorage: CacheStorage {
    public let root: URL
    private let rootDescriptor: Int32

    /// Opens the store at `root`, which must be a folder.
    public init(root: URL) throws(StoreError) {
        self.root = root.standardizedFileURL
        let fd = open(self.root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: self.root.path, reason: String(cString: strerror(errno))) }
        rootDescriptor = fd
    }

    deinit { close(rootDescriptor) }

    public var address: String { root.absoluteString }
    public var health: StoreHealth? { nil }
    public func shutdown() {}

    /// Names of temporary files: never listed, never read as objects.
    static let temporaryPrefix = ".tc-tmp-"
    private static let temporaryPrefixBytes = Array(temporaryPrefix.utf8)

    // MARK: - Reading

    public func list(_ folder: String) async throws(StoreError) -> [StoredObject] {
        let start = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        if !start.isEmpty { _ = try checked(start) }
        var objects: [StoredObject] = []
        // A descent by descriptors, never through a symlink.
        func walk(_ fd: Int32, _ prefix: String) {
            guard let dir = fdopendir(dup(fd)) else { return }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
                if name == "." || name == ".." || name.hasPrefix(Self.temporaryPrefix) { continue }
                var info = stat()
                guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                let path = prefix.isEmpty ? name : prefix + "/" + name
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    guard child >= 0 else { continue }
                    walk(child, path)
                    close(child)
                case S_IFREG:
                    let seconds = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
                    objects.append(StoredObject(key: path, size: Int(info.st_size),
                                                lastModified: Date(timeIntervalSince1970: seconds)))
                default: continue
                }
            }
        }
        if start.isEmpty {
            walk(rootDescriptor, "")
        } else {
            let fd = tc_open_beneath(rootDescriptor, start)
            guard fd >= 0 else {
                if [ENOENT, ENOTDIR].contains(errno) { return [] }
                throw .io(path: start, reason: String(cString: strerror(errno)))
            }
            walk(fd, start)
            close(fd)
        }
        return objects.sorted { $0.key < $1.key }
    }

    public func read(_ path: String, range: Range<Int>?, maxBytes: Int) async throws(StoreError) -> ObjectBytes? {
        guard let (fd, size) = try openRegular(path) else { return nil }
        defer { close(fd) }
        let wanted = range.map { $0.clamped(to: 0..<max(0, size)) } ?? 0..<size
        guard wanted.count <= maxBytes else { throw .tooLarge(key: path, limit: maxBytes) }
        return ObjectBytes(bytes: try Self.read(fd, wanted, path: path), objectSize: size)
    }

    public func download(_ path: String, to file: URL) async throws(StoreError) -> Bool {
        guard let (fd, _) = try openRegular(path) else { return false }
        defer { close(fd) }
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw .io(path: file.path, reason: "cannot be created")
        }
        let out = open(file.path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard out >= 0 else { throw .io(path: file.path, reason: String(cString: strerror(errno))) }
        defer { close(out) }
        try Self.copy(from: fd, to: out, path: path)
        return true
    }

    /// Hashed from the file in pooled chunks (``FileSystem/hashContents(_:size:path:)``),
    /// as the cache's own blobs are.
    public func digest(_ path: String, stall: Duration) async throws(StoreError) -> (hash: BlobHash, size: Int)? {
        guard let (fd, size) = try openRegular(path) else { return nil }
        defer { close(fd) }
        return (try Self.io(path) { () throws(BlobStoreError) in try FileSystem.hashContents(fd, size: size, path: path) }, size)
    }

    public func size(_ path: String) async throws(StoreError) -> Int? {
        guard let (fd, size) = try openRegular(path) else { return nil }
        close(fd)
        return size
    }

    public func probe() async throws(StoreError) {
        var info = stat()
        guard fstat(rootDescriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .io(path: root.path, reason: "not a folder")
        }
    }

    public func checkWritable() async throws(StoreError) {
        guard faccessat(rootDescriptor, ".", W_OK, 0) == 0 else {
            throw .accessDenied(bucket: root.path, code: String(cString: strerror(errno)))
        }
    }

    // MARK: - Writing

    public func store(_ path: String, file: URL, sha256: String?, contentType: String) async throws(StoreError) -> PutOutcome {
        let source = open(file.path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw .invalidLocation("cannot read \(file.path): \(String(cString: strerror(errno)))") }
        defer { close(source) }
        var info = stat()
        guard fstat(source, &info) == 0 else { throw .invalidLocation("cannot read \(file.path): \(String(cString: strerror(errno)))") }
        let hash = try Self.io(path) { () throws(BlobStoreError) in try FileSystem.hashContents(source, path: file.path) }
        return try put(path, hash: hash, size: Int(info.st_size), sha256: sha256, replace: false) { out throws(StoreError) in
            try Self.copy(from: source, to: out, path: file.path)
        }
    }

    public func store(_ path: String, bytes: [UInt8], sha256: String?, contentType: String, replace: Bool) async throws(StoreError) -> PutOutcome {
        try put(path, hash: BlobHash(hashing: bytes), size: bytes.count, sha256: sha256, replace: replace) { out throws(StoreError) in
            let written = bytes.withUnsafeBytes { raw in
                Result { () throws(BlobStoreError) in try FileSystem.writeAll(out, raw, path: path) }
            }
            try Self.io(path) { () throws(BlobStoreError) in try written.get() }
        }
    }

    public func delete(_ path: String) async throws(StoreError) {
        let (folder, name) = try checked(path)
        let fd = try openFolder(folder, create: false)
        guard fd >= 0 else { return }
        defer { close(fd) }
        guard unlinkat(fd, name, 0) == 0 || errno == ENOENT else {
            throw .io(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// Puts the bytes `fill` writes (of SHA-256 `hash` and `size`) at `path`. Unless
    /// replacing, an object already there is compared first (size, then hash): the
    /// same bytes are "already stored" without a write; other bytes are replaced.
    /// Otherwise the bytes go to a temporary file, fsynced, then appear under their
    /// name by `linkat` (a writer that got there first is compared the same way) or
    /// `renameat`, and the folder is fsynced.
    private func put(_ path: String, hash: BlobHash, size: Int, sha256: String?, replace: Bool,
                     _ fill: (Int32) throws(StoreError) -> Void) throws(StoreError) -> PutOutcome {
        if let sha256, hash.hex != sha256 { throw .integrity(key: path) }
        let (folderPath, name) = try checked(path)
        let folder = try openFolder(folderPath, create: true)
        defer { close(folder) }
        func holdsTheseBytes() -> Bool {
            let existing = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            guard existing >= 0 else { return false }
            defer { close(existing) }
            var info = stat()
            guard fstat(existing, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == size else { return false }
            return (try? FileSystem.hashContents(existing, size: size, path: path)) == hash
        }
        var found = false
        if !replace {
            var info = stat()
            found = fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0
            if found, holdsTheseBytes() { return .alreadyStored }
        }
        let temporary = Self.temporaryPrefix + String(UInt64.random(in: .min ... .max), radix: 16)
        let out = openat(folder, temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard out >= 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
        var linked = false
        defer {
            close(out)
            if !linked { unlinkat(folder, temporary, 0) }
        }
        try fill(out)
        guard fsync(out) == 0 else { throw .io(path: path, reason: "fsync: \(String(cString: strerror(errno)))") }
        var outcome = PutOutcome.stored
        if replace || found {
            guard renameat(folder, temporary, folder, name) == 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
            linked = true
            if found { outcome = .replaced }
        } else if linkat(folder, temporary, folder, name, 0) != 0 {
            guard errno == EEXIST else { throw .io(path: path, reason: String(cString: strerror(errno))) }
            // Another writer got there first: its bytes are checked as above.
            if holdsTheseBytes() { return .alreadyStored }
            guard renameat(folder, temporary, folder, name) == 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
            linked = true
            outcome = .replaced
        }
        fsync(folder)
        return outcome
    }

    // MARK: - Paths and descriptors

    /// The folder and name of `path`, refused unless it is a plain relative path
    /// of key-safe characters (no `.`/`..`, no empty part, no temporary's name).
    private func checked(_ path: String) throws(StoreError) -> (folder: String, name: String) {
        guard Self.isStorePath(path) else { throw .invalidLocation("'\(path)' is not a path TweetCache writes") }
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return ("", path) }
        return (String(path[..<slash]), String(path[path.index(after: slash)...]))
    }

    /// Whether `path` is one this store reads or writes: key bytes only, at most 1024 of
    /// them, and no empty, `.`, `..` or temporary-file segment. One pass over the bytes
    /// with no allocation: `verify` asks it once per object of a cache.
    static func isStorePath(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes -> Bool in
            guard !bytes.isEmpty, bytes.count <= 1024 else { return false }
            let dot = UInt8(ascii: "."), slash = UInt8(ascii: "/")
            var start = 0
            for i in 0...bytes.count {
                guard i == bytes.count || bytes[i] == slash else {
                    if !S3Location.keyByte(bytes[i]) { return false }
                    continue
                }
                let segment = UnsafeBufferPointer(rebasing: bytes[start..<i])
                if segment.isEmpty || (segment.count <= 2 && segment.allSatisfy { $0 == dot })
                    || segment.starts(with: temporaryPrefixBytes) { return false }
                start = i + 1
            }
            return true
        }
    }

    /// A descriptor of `folder` below the root (created with `create`), or -1 when
    /// it is absent and not created. Never passes through a symlink.
    private func openFolder(_ folder: String, create: Bool) throws(StoreError) -> Int32 {
        var fd = dup(rootDescriptor)
        for part in folder.split(separator: "/") {
            let name = String(part)
            if create { mkdirat(fd, name, 0o755) }
            let next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let code = errno
            close(fd)
            guard next >= 0 else {
                if !create, code == ENOENT { return -1 }
                throw .io(path: folder, reason: code == ELOOP || code == ENOTDIR
                          ? "a symlink or a file where a folder should be; not used" : String(cString: strerror(code)))
            }
            fd = next
        }
        return fd
    }

    /// Opens a regular file below the root: its descriptor and size, or nil when absent.
    private func openRegular(_ path: String) throws(StoreError) -> (Int32, Int)? {
        _ = try checked(path)
        let fd = tc_open_beneath(rootDescriptor, path)
        guard fd >= 0 else {
            let code = errno
            if [ENOENT, ENOTDIR].contains(code) { return nil }
            throw .io(path: path, reason: code == ELOOP || code == EXDEV ? "leaves the store; not read" : String(cString: strerror(code)))
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return nil
        }
        return (fd, Int(info.st_size))
    }

    private static func read(_ fd: Int32, _ range: Range<Int>, path: String) throws(StoreError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: range.count)
        var done = 0
        while done < range.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, range.count - done, off_t(range.lowerBound + done)) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { throw .io(path: path, reason: String(cString: strerror(errno))) }
            if n == 0 { break }
            done += n
        }
        if done < bytes.count { bytes.removeSubrange(done...) }
        return bytes
    }

    /// The rest of `source` (from its current position) into `destination`, 1 MiB at a time.
    private static func copy(from source: Int32, to destination: Int32, path: String) throws(StoreError) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        let copied = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(BlobStoreError) in
                while true {
                    let n = try FileSystem.readSome(source, into: raw, path: path)
                    if n == 0 { return }
                    try FileSystem.writeAll(destination, UnsafeRawBufferPointer(rebasing: raw[0..<n]), path: path)
                }
            }
        }
        try io(path) { () throws(BlobStoreError) in try copied.get() }
    }

    /// The blob store's file calls, their errors as the store's.
    private static func io<T>(_ path: String, _ body: () throws(BlobStoreError) -> T) throws(StoreError) -> T {
        do { return try body() } catch { throw .io(path: path, reason: error.description) }
    }
}
